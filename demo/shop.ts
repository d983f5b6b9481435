// The demo shop: one product in the cart, paid with <bill-checkout order-id=… order-ticket=…>. The
// order and its ticket come from the shop's server (POST /demo/orders), and the amount is not sent
// from here either: the BFF resolves the order on the server (demo/server/catalogue.ts).
import '../widget/index.js';
import type { BillView } from '../contract/bill-view.js';
import { DEMO_PRODUCTS, type DemoProduct } from './server/catalogue.js';
import { BRAND } from './server/demo-strings.js';
import { clearCheckout, currentCheckout, saveCheckout, type Checkout } from './checkout-store.js';
import { formatAmount } from '../contract/decimal.js';
import { mountCheckout } from './mount-checkout.js';
import { newOrder, orderAttributes, problemText } from './new-order.js';
import { setUpPage, withLanguage } from './page-language.js';

const { lang, t } = setUpPage('navShop');

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
const note = $('order-note');
const newOrderButton = $<HTMLButtonElement>('new-order');

function product(slug: string | null | undefined): DemoProduct {
  return DEMO_PRODUCTS.find((p) => p.slug === slug) ?? DEMO_PRODUCTS[0]!;
}

/** The product's name and blurb in the page's language (the catalogue's when not translated). */
function described(p: DemoProduct): { name: string; blurb: string } {
  return t.products[p.slug] ?? p;
}

function price(p: DemoProduct): string {
  return formatAmount(p.price, lang, p.currency);
}

/** The chosen product; its order once the shop's server has minted it. */
let selected = DEMO_PRODUCTS[0]!.slug;
let checkout: Checkout | null = null;
let asks = 0;
/** The checkout is on: the Pay button stays where it is (nothing below it moves), disabled. */
let paying = false;

function renderProducts(locked: boolean): void {
  productsBox.querySelectorAll('label').forEach((l) => l.remove());
  for (const p of DEMO_PRODUCTS) {
    const label = document.createElement('label');
    label.className = 'product';
    const input = Object.assign(document.createElement('input'), {
      type: 'radio', name: 'product', value: p.slug, checked: p.slug === selected, disabled: locked,
    });
    input.addEventListener('change', () => void choose(p.slug));
    const text = described(p);
    const name = Object.assign(document.createElement('span'), { className: 'name', textContent: text.name });
    const cost = Object.assign(document.createElement('span'), { className: 'price', textContent: price(p) });
    const blurb = Object.assign(document.createElement('span'), { className: 'blurb', textContent: text.blurb });
    label.append(input, name, cost, blurb);
    productsBox.append(label);
  }
}

function renderCart(): void {
  const p = product(selected);
  const rows: [string, string, string?][] = [
    [`1 × ${described(p).name}`, price(p)],
    [t.shipping, t.free],
    [t.total, price(p), 'total'],
  ];
  cart.replaceChildren(...rows.flatMap(([term, value, cls]) => {
    const dt = Object.assign(document.createElement('dt'), { textContent: term });
    const dd = Object.assign(document.createElement('dd'), { textContent: value });
    if (cls) { dt.className = cls; dd.className = cls; }
    return [dt, dd];
  }));
  orderIdText.textContent = checkout ? t.order(checkout.orderId) : '';
  payButton.textContent = t.pay(price(p));
  payButton.disabled = checkout === null || paying;
}

/** A new order for `slug` from the shop's server; the latest choice wins. */
async function choose(slug: string): Promise<void> {
  const ask = ++asks;
  selected = slug;
  checkout = null;
  orderError.textContent = '';
  orderRetry.hidden = true;
  renderCart();
  orderIdText.textContent = t.gettingOrder;
  try {
    const order = await newOrder(slug);
    if (ask !== asks) return;
    checkout = { product: slug, orderId: order.orderId, orderTicket: order.orderTicket };
    renderCart();
  } catch (error) {
    if (ask !== asks) return;
    orderIdText.textContent = '';
    orderError.textContent = `${problemText(error, t)} ${t.tryInAMoment}`;
    orderRetry.hidden = false;
  }
}

function startPayment(): void {
  if (!checkout) return;
  const order = checkout;
  saveCheckout(order);
  paying = true;
  renderProducts(true);
  renderCart();
  let shown = false;
  mountCheckout(checkoutBox, {
    // The service's documents do not name the gold unit: a merchant names the one its service uses.
    attributes: { ...orderAttributes(order), cancellable: '', locale: lang, 'gold-unit': 'g', variant: 'embedded' },
    onCreated(bill) {
      checkout = { ...order, billId: bill.billId };
      saveCheckout(checkout);
      delete checkoutBox.dataset.stale;
      newOrderButton.hidden = true;
    },
    onStatus(bill) {
      showOutcome(bill);
      if (!shown) {
        shown = true;
        bringIntoView();
      }
    },
    onFinal: showOutcome,
    onError(error) {
      // The order's ticket has run out (a tab left open for long): starting this order again cannot
      // work, so the way on is a new order, in place of the element's own retry.
      if ('code' in error && error.code === 'order_ticket_invalid') {
        checkoutBox.dataset.stale = '';
        newOrderButton.hidden = false;
      }
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

/**
 * The note under the element, and the one way to start again each state has: after a payment a new
 * order (the shop's button); after a failed, cancelled or expired bill the element's own "Start
 * again", a new bill for the same order (the shop's button stays hidden).
 */
function showOutcome(bill: BillView): void {
  checkoutBox.dataset.outcome = bill.isFinal ? bill.outcome : 'pending';
  note.className = bill.outcome === 'paid' ? 'note done' : 'note';
  note.textContent = bill.isFinal && checkout ? t.orderNote[bill.outcome](checkout.orderId) : '';
  newOrderButton.hidden = !(bill.isFinal && bill.outcome === 'paid');
}

const OUTCOMES = ['pending', 'paid', 'failed', 'cancelled', 'expired'] as const;
type Outcome = (typeof OUTCOMES)[number];

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
  const view = t.result[outcome];

  let order: Node = document.createTextNode(t.yourOrder);
  if (orderId) {
    const [before = '', after = ''] = t.namedOrder.split('{ref}');
    const named = document.createElement('span');
    named.append(before, Object.assign(document.createElement('span'), { className: 'ref', textContent: orderId }), after);
    order = named;
  }
  shop.hidden = true;
  pageTitle.textContent = view.heading;
  document.title = `${BRAND}: ${view.heading.toLocaleLowerCase(lang)}`;
  const result = $('result');
  result.dataset.outcome = outcome;
  // The text's {brand} and {order}, the order as a node (its id set apart, and only ever as text).
  $('result-text').replaceChildren(...view.text.split(/(\{brand\}|\{order\})/).map((piece) =>
    piece === '{brand}' ? BRAND : piece === '{order}' ? order : piece));
  $('result-bill').textContent = t.resultBill(billId);
  // A checkout of this tab's own is still open: that is where "back" goes.
  const back = $<HTMLAnchorElement>('result-new');
  back.textContent = inProgress ? t.backToCheckout : t.newOrder;
  back.href = withLanguage('./');
  result.hidden = false;
}

payButton.addEventListener('click', startPayment);
orderRetry.addEventListener('click', () => void choose(selected));
newOrderButton.addEventListener('click', () => {
  clearCheckout();
  location.replace(withLanguage(`${location.pathname}?product=${encodeURIComponent(selected)}`));
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
  if (returned) history.replaceState(null, '', withLanguage(location.pathname));
  if (resumed) {
    checkout = resumed;
    selected = resumed.product;
    renderCart();
    startPayment();
    if (returned) note.textContent = t.checkingReturn;
  } else {
    void choose(product(params.get('product')).slug);
    renderProducts(false);
  }
}
