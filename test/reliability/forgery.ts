// Forged callbacks, returns, reads and cancels: right bill ids with wrong tokens, right tokens with
// lying bodies and queries. None may change a status; a wrong token may not cost a requery.
import type { TestContext } from 'node:test';
import { outcomeOf } from '../../server/domain/status/outcome.js';
import type { CreatedBillView } from '../../contract/bill-view.js';
import { STARTED_HERE, startHarness, TEST_KEY, TEST_SECRET } from '../server/support/harness.js';
import { seeded } from '../sandbox/support/harness.js';
import { eachLimited } from './support/figures.js';
import { createRecorder, findLeaks } from './support/record.js';
import { returnToken } from '../../server/domain/create/hook-urls.js';

export interface ForgeryFigures {
  forgeries: number;
  wrongToken: number;
  lyingBody: number;
  /** Forgeries that got anything but the refusal expected, or moved a status. */
  accepted: string[];
  requeriesFromWrongTokens: number;
  cancelsFromWrongTokens: number;
  statusesChanged: string[];
  leaks: string[];
}

const lie = (billId: string, status: number, isFinal = true) => JSON.stringify({
  billId, merchantReference: 'x', requestReference: '', paymentReference: 'P-forged', billAmount: '0.01',
  currency: 'USD', status, statusName: status === 2 ? 'Paid' : 'Cancelled', isFinal, dateTime: Date.now() + 1e9,
});

export async function runForgery(t: TestContext, count: number, seed = 99): Promise<ForgeryFigures> {
  const rand = seeded(seed);
  const recorder = createRecorder();
  const h = await startHarness(t, { env: { CREATE_RATE_LIMIT_PER_MINUTE: '100000', ADMIN_TOKEN: 'admin-token-forgery-5150-0123456789abcdef' } });
  const api = (path: string, init?: RequestInit) => recorder.fetch(`${h.url}${path}`, { redirect: 'manual', ...init });

  const bills: (CreatedBillView & { ref: string; hook: string; ret: string })[] = [];
  for (let i = 0; i < 20; i++) {
    const b = await h.create({ amount: `${10 + i}.00` });
    const stored = (await h.store.getByBillId(b.billId))!;
    bills.push({ ...b, ref: stored.merchantReference, hook: stored.hookToken, ret: await returnToken(stored.hookToken) });
  }
  // A third paid, a third declined (their callbacks land), a third left pending.
  for (const [i, b] of bills.entries()) {
    if (i % 3 === 0) h.sandbox.pay(b.billId);
    if (i % 3 === 1) h.sandbox.decline(b.billId);
  }
  await h.sandbox.idle();
  for (const b of bills) await h.request(`/api/bills/${b.billId}?token=${b.token}`);
  // The reads answer at once and requery behind: the truth is what those requeries stored.
  await h.refreshed();
  const before = new Map(await Promise.all(bills.map(async (b) => [b.billId, (await h.store.getByBillId(b.billId))!] as const)));

  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  /** A token that is not `right`: another bill's, the other kind of this bill's, or `right` altered. */
  const wrongTokenFor = (b: (typeof bills)[number], right: string): string => {
    const other = pick(bills.filter((x) => x !== b));
    const flip = (s: string) => {
      const i = Math.floor(rand() * s.length);
      return s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    };
    const token = pick([
      other.hook, other.token, b.token, b.hook, flip(right), right.slice(0, -1), `${right}x`, right.toUpperCase(),
      right.toLowerCase(), 'x', '%00', encodeURIComponent(`${right} `), 'A'.repeat(2000), `${right}%2F..`,
    ]);
    return token === right ? `${right}0` : token;
  };

  const accepted: string[] = [];
  const wrongCount = Math.round(count * 0.75);
  const stats0 = h.sandbox.stats();
  await eachLimited(Array.from({ length: wrongCount }), 24, async (_, i) => {
    const b = pick(bills);
    const kind = i % 4;
    const wrong = wrongTokenFor(b, kind === 3 ? b.token : b.hook);
    let res: Response;
    if (kind === 0 || kind === 1) {
      res = await api(`/api/hooks/callback/${b.ref}/${wrong}`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: lie(b.billId, pick([2, 3, 4, 5])),
      });
    } else if (kind === 2) {
      res = await api(`/api/hooks/return/${b.ref}/${wrong}?billId=${b.billId}&status=2&outcome=paid`);
    } else {
      // JSON, as the element sends it: a forged token must meet the token check, not the Content-Type guard.
      res = await api(`/api/bills/${b.billId}${rand() < 0.5 ? '/cancel' : ''}?token=${encodeURIComponent(wrong)}`, {
        method: rand() < 0.5 ? 'POST' : 'GET', headers: { 'Content-Type': 'application/json' },
      });
    }
    const text = await res.text();
    if (res.status !== 404) accepted.push(`wrong token, kind ${kind}: ${res.status} ${text.slice(0, 120)}`);
  });
  const stats1 = h.sandbox.stats();
  const requeriesFromWrongTokens = Object.entries(stats1.requeryByBill)
    .reduce((n, [id, c]) => n + c - (stats0.requeryByBill[id] ?? 0), 0);
  const cancelsFromWrongTokens = stats1.calls.cancel - stats0.calls.cancel;

  const lyingCount = count - wrongCount;
  await eachLimited(Array.from({ length: lyingCount }), 24, async (_, i) => {
    const b = pick(bills);
    const kind = i % 3;
    if (kind === 0) {
      const res = await api(`/api/hooks/callback/${b.ref}/${b.hook}`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: lie(b.billId, pick([2, 3, 4, 5])),
      });
      await res.text();
      if (res.status !== 200) accepted.push(`lying callback: ${res.status}`);
    } else if (kind === 1) {
      const other = pick(bills.filter((x) => x !== b));
      const res = await api(`/api/hooks/callback/${b.ref}/${b.hook}`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: lie(other.billId, 2),
      });
      const text = await res.text();
      if (res.status !== 400) accepted.push(`callback naming another bill: ${res.status} ${text.slice(0, 120)}`);
    } else {
      // As the browser that started the bill: the outcome is then in the redirect's Location.
      const res = await api(`/api/hooks/return/${b.ref}/${b.ret}?billId=${b.billId}&status=2&outcome=paid&isFinal=true`, { headers: STARTED_HERE });
      await res.text();
      const location = new URL(res.headers.get('location') ?? 'http://x/');
      const truth = before.get(b.billId)!.outcome;
      if (res.status !== 303 || location.searchParams.get('outcome') !== truth) {
        accepted.push(`lying return: ${res.status} outcome=${location.searchParams.get('outcome')}, truth ${truth}`);
      }
    }
  });

  const statusesChanged: string[] = [];
  for (const b of bills) {
    const now = (await h.store.getByBillId(b.billId))!;
    const was = before.get(b.billId)!;
    const truth = outcomeOf(await h.upstream.requeryBill(b.billId), h.config.statuses);
    if (now.outcome !== was.outcome || now.status !== was.status || now.outcome !== truth) {
      statusesChanged.push(`${b.billId}: ${was.outcome} -> ${now.outcome} (service ${truth})`);
    }
  }
  const leaks = findLeaks([...recorder.texts(), ...h.logs], [TEST_KEY, TEST_SECRET, 'admin-token-forgery-5150-0123456789abcdef'])
    .map((l) => `${l.secret} as ${l.form} in ${l.where}`);
  return {
    forgeries: wrongCount + lyingCount, wrongToken: wrongCount, lyingBody: lyingCount,
    accepted, requeriesFromWrongTokens, cancelsFromWrongTokens, statusesChanged, leaks,
  };
}
