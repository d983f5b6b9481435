// The merchant's admin page over the BFF's admin routes: find a bill (by its order first), see how
// it ended and whether the merchant was told, its history and deliveries, replay, cancel, bind
// customers. The admin token is typed by the merchant and kept in this tab's sessionStorage only;
// nothing secret is built in.
import type { AdminBillList, LocalBill } from '../contract/admin.js';
import { adminApi, forgetToken, keepToken, token, type BillQuery } from './api.js';
import { customersSection } from './customers.js';
import { el, errorText, fillTable } from './dom.js';
import { formats } from './format.js';
import { historyDialog } from './history.js';
import { setUpPage } from './page-language.js';
import { webhookSection } from './webhook.js';

const { lang, a } = setUpPage();
const f = formats(lang, a);

type Row = AdminBillList['lists'][number];
type Filter = BillQuery['filters'][number];

const FIELDS = ['billId', 'merchantReference', 'requestReference', 'paymentReference', 'billAmount', 'currency',
  'status', 'statusName', 'isFinal', 'dateTime'];

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const tokenForm = $<HTMLFormElement>('token-form');
const tokenInput = $<HTMLInputElement>('token');
const tokenState = $('token-state');
const queryForm = $<HTMLFormElement>('query-form');
const orderSearch = $<HTMLInputElement>('order-search');
const orderPartial = $<HTMLInputElement>('order-partial');
const filtersBox = $('filters');
const sortName = $<HTMLSelectElement>('sort-name');
const sortOrder = $<HTMLSelectElement>('sort-order');
const pageSize = $<HTMLSelectElement>('page-size');
const listError = $('list-error');
const table = $<HTMLTableElement>('bills');
const prev = $<HTMLButtonElement>('prev');
const next = $<HTMLButtonElement>('next');
const pageInfo = $('page-info');

let pageIndex = 1;
let total = 0;

/** The token was refused: it is forgotten already; say so, and show nothing that needed it. */
function refused(): void {
  tokenState.textContent = a.tokenForgotten;
  tokenState.className = 'note alert';
  listError.textContent = a.tokenRefused;
  clearAll();
}

const api = adminApi(a, refused);
const history = historyDialog({
  api, a, f,
  changed: () => {
    void load();
    void webhook.load();
  },
  fallbackFocus: (billId) => table.querySelector<HTMLElement>(`tr[data-bill-id="${CSS.escape(billId)}"] button.history`) ?? orderSearch,
});
const webhook = webhookSection({ api, a, f, openHistory: (billId, opener) => void history.open(billId, opener), changed: () => void load() });
const customers = customersSection({ api, a, f });

function option(value: string, selected: boolean): HTMLOptionElement {
  return new Option(value, value, selected, selected);
}

function showTokenState(): void {
  tokenState.className = 'note';
  tokenState.textContent = token() ? a.tokenSet : a.tokenNone;
}

function addFilter(filter: Partial<Filter> = {}): void {
  const name = el('select', { name: 'filterName' }, ...FIELDS.map((x) => option(x, x === (filter.name ?? 'merchantReference'))));
  const match = el('select', { name: 'matchType' }, option('like', filter.matchType !== 'equal'), option('equal', filter.matchType === 'equal'));
  const value = el('input', { name: 'filterValue', value: filter.value ?? '', placeholder: a.valuePlaceholder });
  const remove = el('button', { type: 'button', textContent: a.remove });
  const row = el('div', { className: 'filter-row' },
    el('label', { className: 'field' }, a.field, name),
    el('label', { className: 'field' }, a.match, match),
    el('label', { className: 'field' }, a.value, value),
    remove);
  remove.addEventListener('click', () => row.remove());
  filtersBox.append(row);
}

function filters(): Filter[] {
  const found: Filter[] = [];
  const order = orderSearch.value.trim();
  // The BFF's own filter: the service knows no order ids, the BFF maps them to our bills.
  if (order) found.push({ name: 'orderId', value: order, matchType: orderPartial.checked ? 'like' : 'equal' });
  for (const row of filtersBox.querySelectorAll('.filter-row')) {
    const value = row.querySelector<HTMLInputElement>('[name=filterValue]')!.value.trim();
    if (!value) continue;
    found.push({
      name: row.querySelector<HTMLSelectElement>('[name=filterName]')!.value,
      matchType: row.querySelector<HTMLSelectElement>('[name=matchType]')!.value as Filter['matchType'],
      value,
    });
  }
  return found;
}

function outcomeCell(local: LocalBill | null): HTMLTableCellElement {
  if (!local) return el('td', {}, el('span', { className: 'note' }, a.notFromShop));
  const cell = el('td', {}, el('span', { className: `pill ${local.outcome}` }, a.outcomes[local.outcome]));
  if (local.duplicatePayment) cell.append(' ', el('span', { className: 'pill duplicate' }, a.duplicate));
  if (local.lostAt !== null) cell.append(' ', el('span', { className: 'pill lost' }, a.lost));
  else if (local.orphanedAt !== null) cell.append(' ', el('span', { className: 'pill orphan' }, a.orphan));
  const learned = f.learned(local);
  if (learned) cell.append(learned);
  return cell;
}

/** Whether the merchant's backend was told: the webhook notice's state, "—" when none is sent. */
function noticeCell(local: LocalBill | null): HTMLTableCellElement {
  if (!local || local.notice === 'none') {
    return el('td', {}, el('span', { title: a.noticeNone, 'aria-hidden': 'true' }, '—'), el('span', { className: 'visually-hidden' }, a.noticeNone));
  }
  if (local.notice === 'pending') {
    // The row does not say whether a try failed yet (the history does): queued covers both.
    return el('td', {}, el('span', { className: 'notice-state pending', title: a.noticeRetrying }, a.notice.queued));
  }
  return el('td', {}, el('span', { className: `notice-state ${local.notice}` }, a.notice[local.notice]));
}

function rowView(r: Row): HTMLTableRowElement {
  const actions = el('td', { className: 'actions' });
  const open = el('button', { type: 'button', className: 'history', textContent: a.history, 'aria-label': a.historyOf(r.billId) });
  open.addEventListener('click', () => void history.open(r.billId, open));
  actions.append(open);
  if (!r.isFinal) {
    const cancel = el('button', { type: 'button', className: 'danger', textContent: a.cancel, 'aria-label': a.cancelBill(r.billId) });
    cancel.addEventListener('click', () => void cancelBill(r.billId, cancel));
    actions.append(cancel);
  }
  const tr = el('tr', {},
    el('td', { className: 'mono wrap' }, r.billId),
    r.local?.orderId ? el('td', { className: 'mono wrap' }, r.local.orderId) : el('td', {}, '—'),
    el('td', { className: 'num' }, f.amount(r.billAmount, r.currency)),
    el('td', {}, f.status(r.statusName, r.status)),
    outcomeCell(r.local),
    noticeCell(r.local),
    el('td', { className: 'time' }, f.dateTime(r.dateTime)),
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
  if (!token()) {
    fillTable(table, [], '');
    pageInfo.textContent = '';
    prev.disabled = next.disabled = true;
    return;
  }
  listError.textContent = '';
  const size = Number(pageSize.value);
  try {
    const answer = await api.bills({
      filters: filters(),
      paging: { index: pageIndex, size },
      sort: { name: sortName.value, order: Number(sortOrder.value) === 1 ? 1 : -1 },
    });
    if (run !== loads) return;
    total = answer.total;
    fillTable(table, answer.lists.map(rowView), a.noBills);
  } catch (error) {
    if (run !== loads) return;
    listError.textContent = errorText(error);
    fillTable(table, [], '');
    total = 0;
    if (!token()) {
      pageInfo.textContent = '';
      prev.disabled = next.disabled = true;
      return;
    }
  }
  const pages = Math.max(1, Math.ceil(total / size));
  pageInfo.textContent = a.pageInfo(pageIndex, pages, total);
  prev.disabled = pageIndex <= 1;
  next.disabled = pageIndex >= pages;
}

async function cancelBill(billId: string, button: HTMLButtonElement): Promise<void> {
  button.disabled = true;
  try {
    await api.cancel(billId);
  } catch (error) {
    listError.textContent = errorText(error);
  }
  if (token()) await load();
}

function clearAll(): void {
  loads++;
  table.setAttribute('aria-busy', 'false');
  fillTable(table, [], '');
  pageInfo.textContent = '';
  prev.disabled = next.disabled = true;
  webhook.clear();
  customers.clear();
}

function loadAll(): void {
  if (!token()) {
    clearAll();
    return;
  }
  void load();
  void webhook.load();
  void customers.load();
}

tokenForm.addEventListener('submit', (e) => {
  e.preventDefault();
  keepToken(tokenInput.value.trim());
  tokenInput.value = '';
  showTokenState();
  listError.textContent = '';
  pageIndex = 1;
  loadAll();
});
$('forget').addEventListener('click', () => {
  forgetToken();
  showTokenState();
  listError.textContent = '';
  history.close();
  loadAll();
});
$('add-filter').addEventListener('click', () => addFilter());
queryForm.addEventListener('submit', (e) => {
  e.preventDefault();
  pageIndex = 1;
  void load();
});
prev.addEventListener('click', () => { pageIndex = Math.max(1, pageIndex - 1); void load(); });
next.addEventListener('click', () => { pageIndex += 1; void load(); });

orderSearch.placeholder = a.orderPlaceholder;
for (const x of FIELDS) sortName.append(option(x, x === 'dateTime'));
addFilter();
showTokenState();
loadAll();
