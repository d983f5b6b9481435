// The bill's history in a modal dialog: what the BFF stored (GET /api/admin/bills/:billId), each
// status change with the reason that brought it, and each notice with its delivery log and a replay.
import type { AdminBillDetail, NoticeAttemptView, NoticeView } from '../contract/admin.js';
import { AdminError, type AdminApi } from './api.js';
import { el, errorText, facts, table } from './dom.js';
import type { Formats } from './format.js';
import type { AdminStrings } from './strings.js';

export interface HistoryDeps {
  api: AdminApi;
  a: AdminStrings;
  f: Formats;
  /** Something the list shows changed (a replay): the page refreshes what it shows. */
  changed(): void;
  /** Where focus goes back when the dialog closes and its opener is gone (the list was redrawn). */
  fallbackFocus(billId: string): HTMLElement | null;
}

export interface HistoryDialog {
  open(billId: string, opener: HTMLElement): Promise<void>;
  close(): void;
}

export function historyDialog(d: HistoryDeps): HistoryDialog {
  const { a, f } = d;
  const dialog = document.getElementById('history-dialog') as HTMLDialogElement;
  const title = document.getElementById('history-title')!;
  const body = document.getElementById('history-body')!;
  const status = document.getElementById('history-status')!;
  const error = document.getElementById('history-error')!;
  let opener: HTMLElement | null = null;
  let shown: string | null = null;
  let loads = 0;

  document.getElementById('history-close')!.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    loads++;
    const billId = shown;
    shown = null;
    const back = opener?.isConnected ? opener : billId ? d.fallbackFocus(billId) : null;
    opener = null;
    back?.focus();
  });

  function outcome(detail: AdminBillDetail): HTMLElement {
    const box = el('span', {}, el('span', { className: `pill ${detail.local.outcome}` }, a.outcomes[detail.local.outcome]));
    if (detail.local.duplicatePayment) box.append(' ', el('span', { className: 'pill duplicate' }, a.duplicate));
    if (detail.local.lostAt !== null) box.append(' ', el('span', { className: 'pill lost' }, a.lost));
    else if (detail.local.orphanedAt !== null) box.append(' ', el('span', { className: 'pill orphan' }, a.orphan));
    return box;
  }

  function summary(detail: AdminBillDetail): HTMLDListElement {
    const { bill, local } = detail;
    return facts([
      [a.colOrder, local.orderId ? el('span', { className: 'mono' }, local.orderId) : null],
      [a.colReference, el('span', { className: 'mono' }, bill.merchantReference)],
      [a.colAmount, f.amount(bill.billAmount, bill.currency)],
      [a.colServiceStatus, f.status(bill.statusName, bill.status)],
      [a.colStoredOutcome, outcome(detail)],
      [a.factLearned, f.learned(local)],
      [a.factExpires, f.dateTime(bill.expiredOn)],
      [a.factChecked, f.dateTime(bill.checkedAt)],
      [a.factCreated, f.dateTime(local.createdAt)],
    ]);
  }

  function history(detail: AdminBillDetail): Node {
    if (detail.history.length === 0) return el('p', { className: 'note' }, a.noHistory);
    const rows = detail.history.map((e) => [
      f.when(e.at),
      a.steps[e.kind],
      e.outcome ? el('span', {}, f.status(e.statusName, e.status), ' ', el('span', { className: `pill ${e.outcome}` }, a.outcomes[e.outcome])) : f.status(e.statusName, e.status),
      e.reason ? a.reasons[e.reason] : '',
    ]);
    return el('div', { className: 'table-wrap' },
      table(a.historyTitle, [a.colTime, a.colStep, a.colStatus, a.colReason], rows, 'cards history'));
  }

  function attemptCell(attempt: NoticeAttemptView): Node {
    const cell = el('span', { className: 'attempt' }, String(attempt.number));
    if (attempt.replay) cell.append(' ', el('span', { className: 'pill replay' }, a.replayMark));
    return cell;
  }

  function log(notice: NoticeView): Node {
    if (notice.log.length === 0) return el('p', { className: 'note' }, a.noAttempts);
    const rows = [...notice.log].sort((x, y) => x.number - y.number).map((n) => [
      attemptCell(n),
      f.when(n.at),
      el('span', { className: n.ok ? 'ok' : 'alert' }, n.ok ? a.ok : a.notOk),
      n.httpStatus === null ? '—' : String(n.httpStatus),
      f.duration(n.durationMs),
      n.response ? el('code', { className: 'answer' }, n.response) : '',
      n.error ?? '',
    ]);
    return el('div', { className: 'table-wrap' },
      table(a.logCaption(notice.id), [a.colAttempt, a.colTime, a.colResult, a.colHttp, a.colDuration, a.colAnswer, a.colError], rows, 'cards log'));
  }

  function noticeFacts(n: NoticeView): HTMLDListElement {
    return facts([
      [a.factState, el('span', { className: `notice-state ${n.state}` }, f.noticeState(n))],
      [a.factAttempts, String(n.attempts)],
      [a.factNext, n.state === 'pending' ? f.dateTime(n.nextAttemptAt) : null],
      [a.factDelivered, f.dateTime(n.deliveredAt)],
      [a.factReplayAt, f.dateTime(n.replayAt)],
      [a.factLastError, n.lastError],
    ]);
  }

  function noticeSection(n: NoticeView, index: number): HTMLElement {
    const heading = el('h4', { id: `notice-${index}` }, `${a.channels[n.channel]} `, el('span', { className: 'mono' }, n.id));
    const replay = el('button', { type: 'button', textContent: a.replay, 'aria-label': a.replayNotice(n.id) });
    const details = el('div', { className: 'stack' }, noticeFacts(n), log(n));
    const section = el('section', { className: 'notice stack', 'aria-labelledby': heading.id },
      el('div', { className: 'section-head' }, heading, replay), details);
    section.dataset.noticeId = n.id;
    replay.addEventListener('click', () => void replayNotice(n.id, replay, details));
    return section;
  }

  async function replayNotice(id: string, button: HTMLButtonElement, details: HTMLElement): Promise<void> {
    const run = loads;
    button.disabled = true;
    error.textContent = '';
    status.textContent = '';
    try {
      const { notice } = await d.api.replayNotice(id);
      if (run !== loads) return;
      details.replaceChildren(noticeFacts(notice), log(notice));
      const replays = notice.log.filter((n) => n.replay).sort((x, y) => y.number - x.number);
      const latest = replays[0];
      const result = latest ? (latest.httpStatus !== null ? `HTTP ${latest.httpStatus}` : latest.error ?? (latest.ok ? a.ok : a.notOk)) : '';
      status.textContent = latest ? a.replayedAttempt(latest.number, result) : a.replayQueued;
      d.changed();
    } catch (e) {
      if (run !== loads) return;
      error.textContent = e instanceof AdminError && e.code === 'endpoint_disabled' ? a.endpointOff : errorText(e);
    } finally {
      button.disabled = false;
    }
  }

  function render(detail: AdminBillDetail): void {
    const notices = detail.notices.length === 0
      ? [el('p', { className: 'note' }, a.noNotices)]
      : detail.notices.map(noticeSection);
    body.replaceChildren(
      summary(detail),
      el('h3', {}, a.historyTitle), history(detail),
      el('h3', {}, a.noticesTitle), ...notices,
    );
  }

  async function open(billId: string, from: HTMLElement): Promise<void> {
    const run = ++loads;
    opener = from;
    shown = billId;
    title.textContent = a.billTitle(billId);
    error.textContent = '';
    status.textContent = a.loading;
    body.replaceChildren();
    body.setAttribute('aria-busy', 'true');
    if (!dialog.open) dialog.showModal();
    try {
      const detail = await d.api.bill(billId);
      if (run !== loads) return;
      render(detail);
      status.textContent = '';
    } catch (e) {
      if (run !== loads) return;
      status.textContent = '';
      error.textContent = errorText(e);
    } finally {
      if (run === loads) body.setAttribute('aria-busy', 'false');
    }
  }

  return {
    open,
    close() {
      if (dialog.open) dialog.close();
    },
  };
}
