// React 19 passes properties to custom elements and listens to their custom events natively
// (`onbill-final` → addEventListener('bill-final')). No JSX here, so no extra build step.
import '../widget/index.js';
import { createElement as h, StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { BillView } from '../widget/bill-view.js';
import { freshOrderId } from './checkout-store.js';

function describe(name: string, e: Event): string {
  const bill = (e as CustomEvent<BillView | undefined>).detail;
  return bill && typeof bill === 'object' && 'outcome' in bill ? `${name}: ${bill.outcome}` : name;
}

function App() {
  const [orderId, setOrderId] = useState(() => freshOrderId('mug'));
  const [log, setLog] = useState<string[]>([]);
  const [final, setFinal] = useState<BillView | null>(null);
  const add = (line: string) => setLog((l) => [...l, line]);

  return h('div', { className: 'grid two' },
    h('section', { className: 'card stack', 'aria-labelledby': 'react-product' },
      h('h2', { id: 'react-product' }, 'Enamel camp mug'),
      h('p', { className: 'order-id' }, `Order ${orderId} (passed as the orderId property)`),
      h('bill-checkout', {
        key: orderId,
        orderId,
        mode: 'qr',
        cancellable: true,
        'onbill-created': (e: Event) => add(describe('bill-created', e)),
        'onbill-status': (e: Event) => add(describe('bill-status', e)),
        'onbill-final': (e: Event) => {
          add(describe('bill-final', e));
          setFinal((e as CustomEvent<BillView>).detail);
        },
        'onbill-error': () => add('bill-error'),
      })),
    h('section', { className: 'card stack', 'aria-labelledby': 'react-events' },
      h('h2', { id: 'react-events' }, 'Events React received'),
      h('ol', { className: 'event-log', id: 'event-log' }, log.map((line, i) => h('li', { key: i }, line))),
      final && h('p', { className: 'done', id: 'react-final', role: 'status' }, `React state: the bill is ${final.outcome}.`),
      h('button', {
        type: 'button',
        onClick: () => { setOrderId(freshOrderId('mug')); setLog([]); setFinal(null); },
      }, 'New order')),
  );
}

createRoot(document.getElementById('root')!).render(h(StrictMode, null, h(App)));
