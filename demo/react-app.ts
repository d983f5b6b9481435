// React 19 passes properties to custom elements and listens to their custom events natively
// (`onbill-final` → addEventListener('bill-final')). No JSX here, so no extra build step.
import '../widget/index.js';
import { createElement as h, StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { BillView } from '../contract/bill-view.js';
import { newOrder, problemText, type NewOrder } from './new-order.js';
import { setUpPage } from './page-language.js';

const { lang, t } = setUpPage('navReact');

function describe(name: string, e: Event): string {
  const bill = (e as CustomEvent<BillView | undefined>).detail;
  return bill && typeof bill === 'object' && 'outcome' in bill ? `${name}: ${bill.outcome}` : name;
}

/** An order minted by the shop's server; a new one each time `round` changes. */
function useNewOrder(product: string, round: number): { order: NewOrder | null; problem: string | null } {
  const [state, setState] = useState<{ round: number; order: NewOrder | null; problem: string | null }>(
    { round, order: null, problem: null });
  useEffect(() => {
    const abort = new AbortController();
    newOrder(product, abort.signal).then(
      (order) => setState({ round, order, problem: null }),
      (error: unknown) => { if (!abort.signal.aborted) setState({ round, order: null, problem: problemText(error, t) }); },
    );
    return () => abort.abort();
  }, [product, round]);
  // Until the new round's answer is in, nothing: never the previous order.
  return state.round === round ? state : { order: null, problem: null };
}

function Checkout({ order, onLine, onFinal }: {
  order: NewOrder; onLine: (line: string) => void; onFinal: (bill: BillView) => void;
}) {
  return h('bill-checkout', {
    orderId: order.orderId,
    orderTicket: order.orderTicket ?? undefined,
    mode: 'qr',
    locale: lang,
    cancellable: true,
    'onbill-created': (e: Event) => onLine(describe('bill-created', e)),
    'onbill-status': (e: Event) => onLine(describe('bill-status', e)),
    'onbill-final': (e: Event) => {
      onLine(describe('bill-final', e));
      onFinal((e as CustomEvent<BillView>).detail);
    },
    'onbill-error': () => onLine('bill-error'),
  });
}

function App() {
  const [round, setRound] = useState(0);
  const { order, problem } = useNewOrder('mug', round);
  const [log, setLog] = useState<string[]>([]);
  const [final, setFinal] = useState<BillView | null>(null);
  const add = (line: string) => setLog((l) => [...l, line]);

  let checkout;
  if (order) {
    checkout = [
      h('p', { className: 'order-id', key: 'id' }, t.reactOrder(order.orderId)),
      h(Checkout, { key: order.orderId, order, onLine: add, onFinal: setFinal }),
    ];
  } else if (problem) {
    checkout = h('p', { className: 'note alert', role: 'alert' }, problem);
  } else {
    checkout = h('p', { className: 'note', role: 'status' }, t.reactGettingOrder);
  }

  return h('div', { className: 'grid two' },
    h('section', { className: 'card stack', 'aria-labelledby': 'react-product' },
      h('h2', { id: 'react-product' }, t.products.mug?.name ?? 'Enamel camp mug'),
      checkout),
    h('section', { className: 'card stack', 'aria-labelledby': 'react-events' },
      h('h2', { id: 'react-events' }, t.reactEvents),
      h('ol', { className: 'event-log', id: 'event-log' }, log.map((line, i) => h('li', { key: i }, line))),
      final && h('p', { className: 'done', id: 'react-final', role: 'status' }, t.reactFinal(t.outcomes[final.outcome])),
      h('button', {
        type: 'button',
        onClick: () => { setRound((r) => r + 1); setLog([]); setFinal(null); },
      }, problem ? t.tryAgain : t.newOrderShort)),
  );
}

createRoot(document.getElementById('root')!).render(h(StrictMode, null, h(App)));
