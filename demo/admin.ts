// The merchant's admin page: the service's list of bills through the BFF's admin routes. The admin
// token is typed by the merchant and kept in this tab's sessionStorage only; nothing secret is built in.
import type { ListBillsInput, StatusRecord } from '../server/upstream/types.js';
import type { BillView } from '../contract/bill-view.js';
import { formatDecimal } from './mount-checkout.js';
import { setUpPage } from './page-language.js';

const { lang, t } = setUpPage('navAdmin');

/** What the BFF stored about a bill of the list; null for bills this shop did not create. */
interface Local {
  outcome: BillView['outcome'];
  notified: boolean;
  /** The merchant's order the bill pays; null for a bill created with an amount. */
  orderId: string | null;
  /** The amount the merchant's server resolved for the order (decimal text). */
  orderAmount: string | null;
  /** Paid although another bill of the same order was already paid: the customer is owed a refund. */
  duplicatePayment: boolean;
}
/** A status record of the service's list, with the BFF's own view of the bill. */
type Row = StatusRecord & { local: Local | null };
interface ListAnswer { lists: Row[]; total: number }
type Filter = NonNullable<ListBillsInput['filters']>[number];

const FIELDS = ['billId', 'merchantReference', 'requestReference', 'paymentReference', 'billAmount', 'currency',
  'status', 'statusName', 'isFinal', 'dateTime'];
const TOKEN_KEY = 'northwind:admin-token';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const tokenForm = $<HTMLFormElement>('token-form');
const tokenInput = $<HTMLInputElement>('token');
const tokenState = $('token-state');
const queryForm = $<HTMLFormElement>('query-form');
const filtersBox = $('filters');
const sortName = $<HTMLSelectElement>('sort-name');
const sortOrder = $<HTMLSelectElement>('sort-order');
const pageSize = $<HTMLSelectElement>('page-size');
const listError = $('list-error');
const table = $<HTMLTableElement>('bills');
const tbody = table.tBodies[0]!;
const prev = $<HTMLButtonElement>('prev');
const next = $<HTMLButtonElement>('next');
const pageInfo = $('page-info');
const bindForm = $<HTMLFormElement>('bind-form');
const bindResult = $('bind-result');

let pageIndex = 1;
let total = 0;

class AdminError extends Error {}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K, props: Record<string, string | number | boolean> = {}, ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function option(value: string, selected: boolean): HTMLOptionElement {
  return new Option(value, value, selected, selected);
}

function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

async function admin<T>(path: string, body: unknown): Promise<T> {
  const bearer = token();
  if (!bearer) throw new AdminError(t.needToken);
  let res: Response;
  try {
    res = await fetch(`/api/admin/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      body: JSON.stringify(body),
    });
  } catch {
    throw new AdminError(t.bffUnreachable);
  }
  const answer = (await res.json().catch(() => null)) as T | { error?: { message?: string } } | null;
  if (res.ok) return answer as T;
  if (res.status === 401 || res.status === 403) throw new AdminError(t.tokenRefused);
  if (res.status === 404 && path === 'bills') throw new AdminError(t.routesOff);
  const message = (answer as { error?: { message?: string } } | null)?.error?.message;
  throw new AdminError(message ?? t.httpStatus(res.status));
}

function showTokenState(): void {
  tokenState.textContent = token() ? t.tokenSet : t.tokenNone;
}

function addFilter(filter: Partial<Filter> = {}): void {
  const name = el('select', { name: 'filterName' }, ...FIELDS.map((f) => option(f, f === (filter.name ?? 'merchantReference'))));
  const match = el('select', { name: 'matchType' }, option('like', filter.matchType !== 'equal'), option('equal', filter.matchType === 'equal'));
  const value = el('input', { name: 'filterValue', value: filter.value ?? '', placeholder: t.valuePlaceholder });
  const remove = el('button', { type: 'button', textContent: t.remove });
  const row = el('div', { className: 'filter-row' },
    el('label', { className: 'field' }, t.field, name),
    el('label', { className: 'field' }, t.match, match),
    el('label', { className: 'field' }, t.value, value),
    remove);
  remove.addEventListener('click', () => row.remove());
  filtersBox.append(row);
}

function filters(): Filter[] {
  return Array.from(filtersBox.querySelectorAll('.filter-row')).flatMap((row) => {
    const value = row.querySelector<HTMLInputElement>('[name=filterValue]')!.value.trim();
    if (!value) return [];
    return [{
      name: row.querySelector<HTMLSelectElement>('[name=filterName]')!.value,
      matchType: row.querySelector<HTMLSelectElement>('[name=matchType]')!.value as Filter['matchType'],
      value,
    }];
  });
}

const time = new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium' });

function rowView(r: Row): HTMLTableRowElement {
  const outcome = el('td', {}, r.local
    ? el('span', { className: `pill ${r.local.outcome}` }, t.outcomes[r.local.outcome])
    : el('span', { className: 'note' }, t.notFromShop));
  if (r.local?.duplicatePayment) {
    outcome.append(' ', el('span', { className: 'pill duplicate' }, t.duplicate));
  }
  const order = r.local?.orderId
    ? el('td', { className: 'mono' }, r.local.orderId)
    : el('td', {}, '—');
  const notified = r.local ? (r.local.notified ? t.yes : t.no) : '—';
  const actions = el('td');
  if (!r.isFinal) {
    const cancel = el('button', { type: 'button', className: 'danger', textContent: t.cancel });
    cancel.setAttribute('aria-label', t.cancelBill(r.merchantReference));
    cancel.addEventListener('click', () => void cancelBill(r.billId, cancel));
    actions.append(cancel);
  }
  const tr = el('tr',
    {},
    el('td', { className: 'mono' }, r.billId),
    order,
    el('td', { className: 'mono' }, r.merchantReference),
    el('td', { className: 'num' }, `${formatDecimal(r.billAmount, lang)} ${r.currency}`),
    el('td', {}, `${r.statusName} (${r.status})`),
    outcome,
    el('td', {}, notified),
    el('td', { className: 'num' }, Number.isFinite(r.dateTime) ? time.format(r.dateTime) : ''),
    actions);
  tr.dataset.billId = r.billId;
  return tr;
}

let loads = 0;

/** Shows the list as the form asks; the latest load wins, and the table is aria-busy meanwhile. */
async function load(): Promise<void> {
  const run = ++loads;
  table.setAttribute('aria-busy', 'true');
  try {
    await render(run);
  } finally {
    if (run === loads) table.setAttribute('aria-busy', 'false');
  }
}

async function render(run: number): Promise<void> {
  listError.textContent = '';
  if (!token()) {
    tbody.replaceChildren();
    pageInfo.textContent = '';
    prev.disabled = next.disabled = true;
    return;
  }
  const size = Number(pageSize.value);
  try {
    const answer = await admin<ListAnswer>('bills', {
      filters: filters(),
      paging: { index: pageIndex, size },
      sort: { name: sortName.value, order: Number(sortOrder.value) },
    });
    if (run !== loads) return;
    total = answer.total;
    tbody.replaceChildren(...answer.lists.map(rowView));
    if (answer.lists.length === 0) {
      tbody.append(el('tr', {}, Object.assign(el('td', {}, t.noBills), { colSpan: 9 })));
    }
  } catch (error) {
    if (run !== loads) return;
    listError.textContent = error instanceof Error ? error.message : String(error);
    tbody.replaceChildren();
    total = 0;
  }
  const pages = Math.max(1, Math.ceil(total / size));
  pageInfo.textContent = t.pageInfo(pageIndex, pages, total);
  prev.disabled = pageIndex <= 1;
  next.disabled = pageIndex >= pages;
}

async function cancelBill(billId: string, button: HTMLButtonElement): Promise<void> {
  button.disabled = true;
  try {
    await admin(`bills/${encodeURIComponent(billId)}/cancel`, {});
  } catch (error) {
    listError.textContent = error instanceof Error ? error.message : String(error);
  }
  await load();
}

tokenForm.addEventListener('submit', (e) => {
  e.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, tokenInput.value.trim());
  tokenInput.value = '';
  showTokenState();
  pageIndex = 1;
  void load();
});
$('forget').addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  showTokenState();
  void load();
});
$('add-filter').addEventListener('click', () => addFilter());
queryForm.addEventListener('submit', (e) => {
  e.preventDefault();
  pageIndex = 1;
  void load();
});
prev.addEventListener('click', () => { pageIndex = Math.max(1, pageIndex - 1); void load(); });
next.addEventListener('click', () => { pageIndex += 1; void load(); });

bindForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const data = new FormData(bindForm);
  const customer: Record<string, string> = {};
  for (const key of ['name', 'email', 'phone']) {
    const v = String(data.get(key) ?? '').trim();
    if (v) customer[key] = v;
  }
  bindResult.className = 'note';
  if (!customer.email && !customer.phone) {
    bindResult.className = 'note alert';
    bindResult.textContent = t.giveContact;
    return;
  }
  try {
    const answer = await admin<{ customerId: string }>('customers', customer);
    bindResult.textContent = t.bound(answer.customerId);
  } catch (error) {
    bindResult.className = 'note alert';
    bindResult.textContent = error instanceof Error ? error.message : String(error);
  }
});

for (const f of FIELDS) sortName.append(option(f, f === 'dateTime'));
addFilter();
showTokenState();
void load();
