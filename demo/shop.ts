// The demo shop: one product in the cart, paid with <bill-checkout order-id=…>. The amount is not
// sent from here: the BFF resolves the order on the server (server/demo-orders.ts).
import '../widget/index.js';
import type { BillView } from '../widget/bill-view.js';
import { DEMO_PRODUCTS, type DemoProduct } from '../server/demo-orders.js';
import { clearCheckout, currentCheckout, freshOrderId, saveCheckout, type Checkout } from './checkout-store.js';
import { formatMoney, mountCheckout, OUTCOME_TEXT } from './mount-checkout.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const productsBox = $<HTMLFieldSetElement>('products');
const cart = $<HTMLDListElement>('cart');
const orderIdText = $('order-id');
const payButton = $<HTMLButtonElement>('pay');
const checkoutBox = $('checkout');
const hint = $('pay-hint');
const note = $('order-note');
const newOrder = $<HTMLButtonElement>('new-order');

function product(slug: string | null | undefined): DemoProduct {
  return DEMO_PRODUCTS.find((p) => p.slug === slug) ?? DEMO_PRODUCTS[0]!;
}

let checkout: Checkout;

function renderProducts(locked: boolean): void {
  productsBox.querySelectorAll('label').forEach((l) => l.remove());
  for (const p of DEMO_PRODUCTS) {
    const label = document.createElement('label');
    label.className = 'product';
    const input = Object.assign(document.createElement('input'), {
      type: 'radio', name: 'product', value: p.slug, checked: p.slug === checkout.product, disabled: locked,
    });
    input.addEventListener('change', () => choose(p.slug));
    const name = Object.assign(document.createElement('span'), { className: 'name', textContent: p.name });
    const price = Object.assign(document.createElement('span'), { className: 'price', textContent: formatMoney(p.price, p.currency) });
    const blurb = Object.assign(document.createElement('span'), { className: 'blurb', textContent: p.blurb });
    label.append(input, name, price, blurb);
    productsBox.append(label);
  }
}

function renderCart(): void {
  const p = product(checkout.product);
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
  orderIdText.textContent = `Order ${checkout.orderId}`;
  payButton.textContent = `Pay ${formatMoney(p.price, p.currency)}`;
}

function choose(slug: string): void {
  checkout = { product: slug, orderId: freshOrderId(slug) };
  renderCart();
}

function startPayment(): void {
  saveCheckout(checkout);
  renderProducts(true);
  payButton.hidden = true;
  hint.hidden = true;
  let shown = false;
  mountCheckout(checkoutBox, {
    attributes: { 'order-id': checkout.orderId, cancellable: '' },
    onCreated(bill) {
      checkout = { ...checkout, billId: bill.billId };
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
      newOrder.hidden = false;
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
  note.textContent = bill.isFinal ? `Order ${checkout.orderId}: ${OUTCOME_TEXT[bill.outcome]}` : '';
}

payButton.addEventListener('click', startPayment);
newOrder.addEventListener('click', () => {
  clearCheckout();
  location.replace(`${location.pathname}?product=${encodeURIComponent(checkout.product)}`);
});

// The return route sends the customer back here with ?billId=…&outcome=…. Both are only hints
// (anyone can type them): the element shows what the BFF says, which asked the service.
const params = new URLSearchParams(location.search);
const returned = params.get('billId');
const resumed = currentCheckout();
if (returned) history.replaceState(null, '', location.pathname);

if (resumed) {
  checkout = resumed;
  renderCart();
  startPayment();
  if (returned && returned === resumed.billId) note.textContent = 'Back from the payment page: checking the payment…';
} else {
  choose(product(params.get('product')).slug);
  renderProducts(false);
  if (returned) note.textContent = 'You came back from a payment page for a bill not started in this tab.';
}
