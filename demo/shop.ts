// The demo shop: one product in the cart, paid with <bill-checkout order-id=… order-ticket=…>. The
// order and its ticket come from the shop's server (POST /demo/orders), and the amount is not sent
// from here either: the BFF resolves the order on the server (server/demo-orders/catalogue.ts).
import '../widget/index.js';
import type { BillView } from '../contract/bill-view.js';
import { DEMO_PRODUCTS, type DemoProduct } from '../server/demo-orders/catalogue.js';
import { clearCheckout, currentCheckout, saveCheckout, type Checkout } from './checkout-store.js';
import { formatMoney, mountCheckout, OUTCOME_TEXT } from './mount-checkout.js';
import { newOrder, orderAttributes, problemText } from './new-order.js';

const BRAND = 'Northwind Goods';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const pageTitle = $('page-title');
const shop = $('shop');
const productsBox = $<HTMLFieldSetElement>('products');
const cart = $<HTMLDListElement>('cart');
const orderIdText = $('order-id');
const orderError = $('order-error');
const orderRetry = $<HTMLButtonElement>('order-retry');
const payButton = $<HTMLButtonElement>('pay');
const checkoutBox = $('checkout');
const hint = $('pay-hint');
const note = $('order-note');
const newOrderButton = $<HTMLButtonElement>('new-order');

function product(slug: string | null | undefined): DemoProduct {
  return DEMO_PRODUCTS.find((p) => p.slug === slug) ?? DEMO_PRODUCTS[0]!;
}

/** The chosen product; its order once the shop's server has minted it. */
let selected = DEMO_PRODUCTS[0]!.slug;
let checkout: Checkout | null = null;
let asks = 0;

function renderProducts(locked: boolean): void {
  productsBox.querySelectorAll('label').forEach((l) => l.remove());
  for (const p of DEMO_PRODUCTS) {
    const label = document.createElement('label');
    label.className = 'product';
    const input = Object.assign(document.createElement('input'), {
      type: 'radio', name: 'product', value: p.slug, checked: p.slug === selected, disabled: locked,
    });
    input.addEventListener('change', () => void choose(p.slug));
    const name = Object.assign(document.createElement('span'), { className: 'name', textContent: p.name });
    const price = Object.assign(document.createElement('span'), { className: 'price', textContent: formatMoney(p.price, p.currency) });
    const blurb = Object.assign(document.createElement('span'), { className: 'blurb', textContent: p.blurb });
    label.append(input, name, price, blurb);
    productsBox.append(label);
  }
}

function renderCart(): void {
  const p = product(selected);
  const rows: [string, string, string?][] = [
    [`1 × ${p.name}`, formatMoney(p.price, p.currency)],
    ['Shipping', 'Free'],
    ['Total', formatMoney(p.price, p.currency), 'total'],
  ];
  cart.replaceChildren(...rows.flatMap(([term, value, cls]) => {
    const dt = Object.assign(document.createElement('dt'), { textContent: term });
    const dd = Object.assign(document.createElement('dd'), { textContent: value });
    if (cls) { dt.className = cls; dd.className = cls; }
    return [dt, dd];
  }));
  orderIdText.textContent = checkout ? `Order ${checkout.orderId}` : '';
  payButton.textContent = `Pay ${formatMoney(p.price, p.currency)}`;
  payButton.disabled = checkout === null;
}

/** A new order for `slug` from the shop's server; the latest choice wins. */
async function choose(slug: string): Promise<void> {
  const ask = ++asks;
  selected = slug;
  checkout = null;
  orderError.textContent = '';
  orderRetry.hidden = true;
  renderCart();
  orderIdText.textContent = 'Getting your order…';
  try {
    const order = await newOrder(slug);
    if (ask !== asks) return;
    checkout = { product: slug, orderId: order.orderId, orderTicket: order.orderTicket };
    renderCart();
  } catch (error) {
    if (ask !== asks) return;
    orderIdText.textContent = '';
    orderError.textContent = `${problemText(error)} Try again in a moment.`;
    orderRetry.hidden = false;
  }
}

function startPayment(): void {
  if (!checkout) return;
  const order = checkout;
  saveCheckout(order);
  renderProducts(true);
  payButton.hidden = true;
  hint.hidden = true;
  let shown = false;
  mountCheckout(checkoutBox, {
    attributes: { ...orderAttributes(order), cancellable: '' },
    onCreated(bill) {
      checkout = { ...order, billId: bill.billId };
      saveCheckout(checkout);
    },
    onStatus(bill) {
      showOutcome(bill);
      if (!shown) {
        shown = true;
        bringIntoView();
      }
    },
    onFinal(bill) {
      showOutcome(bill);
      newOrderButton.hidden = false;
    },
  });
}

/** On a phone the payment is below the cart: show it once the bill is there. */
function bringIntoView(): void {
  const section = checkoutBox.closest('section')!;
  if (section.getBoundingClientRect().top > innerHeight / 2) {
    requestAnimationFrame(() => section.scrollIntoView({ block: 'start' }));
  }
}

function showOutcome(bill: BillView): void {
  note.className = bill.outcome === 'paid' ? 'note done' : 'note';
  note.textContent = bill.isFinal && checkout ? `Order ${checkout.orderId}: ${OUTCOME_TEXT[bill.outcome]}` : '';
}

const OUTCOMES = ['pending', 'paid', 'failed', 'cancelled', 'expired'] as const;
type Outcome = (typeof OUTCOMES)[number];

/** What the customer is told, per outcome; `order` is where the order's id goes (or "your order"). */
const RESULT: Record<Outcome | 'unknown', { heading: string; text: (order: Node) => (Node | string)[] }> = {
  paid: {
    heading: 'Payment received',
    text: (order) => [`${BRAND} has your payment for `, order, '. You can close this page and go back to where you started.'],
  },
  pending: {
    heading: 'Waiting for confirmation',
    text: (order) => [`${BRAND} is waiting for the payment service to confirm the payment for `, order,
      '. The page where you started will show the result as soon as it is confirmed; you can close this one.'],
  },
  failed: {
    heading: 'Payment failed',
    text: (order) => ['The payment for ', order, ` did not go through, so ${BRAND} has not been paid. `,
      'Go back to where you started to try again, or start a new order here.'],
  },
  cancelled: {
    heading: 'Payment cancelled',
    text: (order) => ['The bill for ', order, ` was cancelled before it was paid, so ${BRAND} has not been paid. `,
      'Go back to where you started, or start a new order here.'],
  },
  expired: {
    heading: 'Bill expired',
    text: (order) => ['The bill for ', order, ` expired before it was paid, so ${BRAND} has not been paid. `,
      'Go back to where you started, or start a new order here.'],
  },
  unknown: {
    heading: 'Back from the payment page',
    text: (order) => ['This link does not say how the payment for ', order, ' went. ',
      'The page where you started the payment shows its result.'],
  },
};

/**
 * The device that paid, back from the payment page, in a tab that did not start the bill (the
 * phone that scanned the QR code): what happened, instead of a fresh cart. The query is only a
 * hint (anyone can type it), so it is shown as text, and only known outcomes are named.
 */
function showResult(query: URLSearchParams, inProgress: boolean): void {
  const given = query.get('outcome');
  const outcome = (OUTCOMES as readonly string[]).includes(given ?? '') ? (given as Outcome) : 'unknown';
  const orderId = query.get('orderId')?.trim().slice(0, 200) || null;
  const billId = query.get('billId')!.trim().slice(0, 200);
  const view = RESULT[outcome];

  let order: Node = document.createTextNode('your order');
  if (orderId) {
    const named = document.createElement('span');
    named.append('order ', Object.assign(document.createElement('span'), { className: 'ref', textContent: orderId }));
    order = named;
  }
  shop.hidden = true;
  pageTitle.textContent = view.heading;
  document.title = `${BRAND}: ${view.heading.toLowerCase()}`;
  const result = $('result');
  result.dataset.outcome = outcome;
  $('result-text').replaceChildren(...view.text(order));
  $('result-bill').textContent = `Bill ${billId}`;
  // A checkout of this tab's own is still open: that is where "back" goes.
  $('result-new').textContent = inProgress ? 'Back to your checkout' : 'Start a new order';
  result.hidden = false;
}

payButton.addEventListener('click', startPayment);
orderRetry.addEventListener('click', () => void choose(selected));
newOrderButton.addEventListener('click', () => {
  clearCheckout();
  location.replace(`${location.pathname}?product=${encodeURIComponent(selected)}`);
});

// The return route sends the customer back here with ?billId=…&orderId=…&outcome=…. All are only
// hints (anyone can type them): the tab that started the bill shows what the element hears from the
// BFF, which asked the service; any other tab (another device) shows the hint, as text.
const params = new URLSearchParams(location.search);
const returned = params.get('billId');
const resumed = currentCheckout();

if (returned && returned !== resumed?.billId) {
  // The query stays in the address: a reload shows the same page, not a fresh cart.
  showResult(params, resumed !== null);
} else {
  if (returned) history.replaceState(null, '', location.pathname);
  if (resumed) {
    checkout = resumed;
    selected = resumed.product;
    renderCart();
    startPayment();
    if (returned) note.textContent = 'Back from the payment page: checking the payment…';
  } else {
    void choose(product(params.get('product')).slug);
    renderProducts(false);
  }
}
