// Debian's Chromium through playwright-core (nothing is downloaded), and what the tests read off a page.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { en } from '../../../widget/strings.js';

export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
export const DESKTOP = { viewport: { width: 1280, height: 900 } };

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A fresh context whose pages record CSP violations and uncaught errors. */
export async function context(browser: Browser, options: typeof DESKTOP | typeof PHONE = DESKTOP): Promise<BrowserContext> {
  return browser.newContext({ ...options, locale: 'en-US', timezoneId: 'UTC' });
}

export interface Watched {
  page: Page;
  /** CSP violations and page errors seen so far. */
  problems: string[];
}

export async function open(ctx: BrowserContext, url: string): Promise<Watched> {
  const page = await ctx.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) problems.push(`csp: ${m.text()}`);
  });
  await recordBillEvents(page);
  await page.goto(url);
  return { page, problems };
}

/** The element's status line, or its heading once final. */
export function statusText(page: Page, scope = 'bill-checkout'): Promise<string> {
  return page.locator(`${scope} [part~="status"], ${scope} [part~="heading"]`).first().innerText();
}

/** The element's English texts (widget/strings.ts). */
export const TEXT = en;
const HEADINGS = { paid: en.paid, failed: en.failed, cancelled: en.cancelled, expired: en.expired };
/** The element's "retrying" lines: the service unreachable, or the live connection lost. */
export const RETRYING = new RegExp([en.unreachable, en.reconnecting].map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));

/** Waits until the element shows a final state; answers the outcome its heading names. */
export async function finalOutcome(page: Page, scope = 'bill-checkout', timeout = 20_000): Promise<string> {
  const heading = page.locator(`${scope} [part~="heading"]`);
  await heading.waitFor({ timeout });
  const text = (await heading.innerText()).trim();
  return Object.entries(HEADINGS).find(([, h]) => h === text)?.[0] ?? `unknown heading "${text}"`;
}

export interface BillEvent { type: string; billId: string; outcome: string; billUrl: string }

/** Every bill-* event on every document the page loads, kept in window.__bills. */
async function recordBillEvents(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __bills: BillEvent[] };
    w.__bills = [];
    for (const type of ['bill-created', 'bill-status', 'bill-final']) {
      document.addEventListener(type, (e) => {
        const d = (e as CustomEvent<BillEvent>).detail;
        w.__bills.push({ type, billId: d.billId, outcome: d.outcome, billUrl: d.billUrl });
      });
    }
  });
}

export async function billEvents(page: Page): Promise<BillEvent[]> {
  return page.evaluate(() => (window as unknown as { __bills: BillEvent[] }).__bills);
}

/** The bill the page's element is showing (after its first bill-status event). */
export async function shownBill(page: Page): Promise<BillEvent> {
  await page.waitForFunction(() => (window as unknown as { __bills?: unknown[] }).__bills?.length);
  const events = await billEvents(page);
  return events[events.length - 1]!;
}
