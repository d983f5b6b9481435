// The webhook deliveries: the merchant's endpoint (re-enabled here after a 410 Gone disabled it),
// the notices that failed, and a replay of one or of every failed notice in a time range.
import type { NoticeView, WebhookEndpointView } from '../contract/admin.js';
import { AdminError, token, type AdminApi } from './api.js';
import { el, errorText, facts, fillTable } from './dom.js';
import type { Formats } from './format.js';
import type { AdminStrings } from './strings.js';
import { setText } from '../contract/page-language.js';

export interface WebhookDeps {
  api: AdminApi;
  a: AdminStrings;
  f: Formats;
  openHistory(billId: string, opener: HTMLElement): void;
  /** A replay changed what the bills list shows. */
  changed(): void;
}

export interface WebhookSection {
  load(): Promise<void>;
  clear(): void;
}

/** `datetime-local` text of a time, in this browser's zone, to the second. */
function localInput(at: number): string {
  const d = new Date(at);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function webhookSection(d: WebhookDeps): WebhookSection {
  const { a, f } = d;
  const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
  const endpointBox = $('webhook-endpoint');
  const error = $('webhook-error');
  const result = $('webhook-result');
  const rangeForm = $<HTMLFormElement>('replay-range');
  const from = $<HTMLInputElement>('replay-from');
  const to = $<HTMLInputElement>('replay-to');
  const failed = $<HTMLTableElement>('failed-notices');
  let loads = 0;

  // The last day up to the next hour: the failures a merchant usually means.
  const now = Date.now();
  from.value = localInput(now - 24 * 3_600_000);
  to.value = localInput(now + 3_600_000);

  function fail(e: unknown): void {
    error.textContent = e instanceof AdminError && e.code === 'endpoint_disabled' ? a.endpointOff : errorText(e);
  }

  function endpoint(webhook: WebhookEndpointView | null): void {
    if (!webhook) {
      const note = el('p', { className: 'note' });
      setText(note, a.webhookNone);
      endpointBox.replaceChildren(note);
      return;
    }
    const state = el('span', { className: webhook.enabled ? 'ok' : 'alert' }, webhook.enabled
      ? a.endpointEnabled
      : a.endpointDisabled(f.dateTime(webhook.disabledAt), webhook.disabledReason ?? ''));
    const box = el('div', { className: 'endpoint-state' }, state);
    if (!webhook.enabled) {
      const enable = el('button', { type: 'button', className: 'primary', textContent: a.reenable });
      enable.addEventListener('click', () => void reenable(enable));
      box.append(enable);
    }
    endpointBox.replaceChildren(facts([
      [a.factEndpoint, el('span', { className: 'mono wrap' }, webhook.url)],
      [a.factState, box],
      [a.factSecrets, String(webhook.secrets)],
    ]));
  }

  function row(n: NoticeView): HTMLTableRowElement {
    const history = el('button', { type: 'button', textContent: a.history, 'aria-label': a.historyOf(n.billId) });
    history.addEventListener('click', () => d.openHistory(n.billId, history));
    const replay = el('button', { type: 'button', textContent: a.replay, 'aria-label': a.replayNotice(n.id) });
    replay.addEventListener('click', () => void replayOne(n.id, replay));
    const tr = el('tr', {},
      el('td', { className: 'mono wrap' }, n.id),
      el('td', { className: 'mono wrap' }, n.billId),
      el('td', {}, f.when(n.createdAt)),
      el('td', { className: 'num' }, String(n.attempts)),
      el('td', { className: 'wrap' }, n.lastError ?? ''),
      el('td', { className: 'actions' }, history, replay));
    tr.dataset.noticeId = n.id;
    return tr;
  }

  /** `afterAction`: the action's own message (an error included) stays. */
  async function load(afterAction = false): Promise<void> {
    const run = ++loads;
    failed.setAttribute('aria-busy', 'true');
    try {
      const list = await d.api.notices({ state: 'failed', limit: 50 });
      if (run !== loads) return;
      if (!afterAction) error.textContent = '';
      endpoint(list.webhook);
      fillTable(failed, list.notices.map(row), a.noFailed);
    } catch (e) {
      if (run !== loads) return;
      fail(e);
      endpointBox.replaceChildren();
      fillTable(failed, [], a.noFailed);
    } finally {
      if (run === loads) failed.setAttribute('aria-busy', 'false');
    }
  }

  async function act(button: HTMLButtonElement, action: () => Promise<string>): Promise<void> {
    button.disabled = true;
    error.textContent = '';
    result.textContent = '';
    try {
      result.textContent = await action();
      d.changed();
    } catch (e) {
      fail(e);
    } finally {
      button.disabled = false;
    }
    if (token()) await load(true);
  }

  function reenable(button: HTMLButtonElement): Promise<void> {
    return act(button, async () => {
      endpoint(await d.api.enableWebhook());
      return a.reenabled;
    });
  }

  function replayOne(id: string, button: HTMLButtonElement): Promise<void> {
    return act(button, async () => {
      const { notice } = await d.api.replayNotice(id);
      const latest = notice.log.filter((n) => n.replay).sort((x, y) => y.number - x.number)[0];
      if (!latest) return a.replayQueued;
      return a.replayedAttempt(latest.number, latest.httpStatus !== null ? `HTTP ${latest.httpStatus}` : latest.error ?? a.notOk);
    });
  }

  rangeForm.addEventListener('submit', (e) => {
    e.preventDefault();
    // datetime-local text without a zone is read as this browser's local time.
    const start = new Date(from.value).getTime();
    const end = new Date(to.value).getTime();
    if (!(start < end)) {
      result.textContent = '';
      error.textContent = a.rangeInvalid;
      return;
    }
    const button = rangeForm.querySelector<HTMLButtonElement>('button[type=submit]')!;
    void act(button, async () => a.replayedCount((await d.api.replayRange(start, end)).replayed));
  });
  $('refresh-notices').addEventListener('click', () => {
    result.textContent = '';
    void load();
  });

  return {
    load: () => load(),
    clear() {
      loads++;
      error.textContent = '';
      result.textContent = '';
      endpointBox.replaceChildren();
      fillTable(failed, [], '');
    },
  };
}
