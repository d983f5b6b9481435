// One page API over the three engines' own automation: puppeteer-core for Chromium (CDP) and
// Firefox ESR (WebDriver BiDi), webdriverio over classic WebDriver for WebKitGTK. Only what the
// cross-engine payment tests need; the rest of the end-to-end suite stays on playwright-core.
import puppeteer, { type Browser as PuppeteerBrowser, type BrowserContext, type ElementHandle, type Page } from 'puppeteer-core';
import { remote } from 'webdriverio';
import { CHROMIUM_ARGS, CHROMIUM_PATH, FIREFOX_PATH, type Engine } from '../../engines/engines.mjs';
import { resizeViewport, startWebKitDriver, webkitCapabilities } from '../../engines/webkit-driver.mjs';

export type { Engine };

/** Desktop, or a phone's width (WebKitGTK's windows stop at about 450 px: still a phone to the element). */
export type Size = 'desktop' | 'phone';
const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** A page script's function: serialised with its arguments, so it may use nothing from its scope. */
export type PageFunction<A extends unknown[], T> = (...args: A) => T;

export interface EnginePage {
  goto(url: string): Promise<void>;
  url(): Promise<string>;
  /** The browser's Back button. */
  back(): Promise<void>;
  /** Runs a function in the page; answers its (JSON) result. */
  evaluate<A extends unknown[], T>(fn: PageFunction<A, T>, ...args: A): Promise<T>;
  /** Waits until a page function answers something truthy, and answers that. */
  waitFor<A extends unknown[], T>(what: string, fn: PageFunction<A, T>, ...args: A): Promise<NonNullable<T>>;
  /** Waits for the element a page function finds (it may reach into shadow roots), then clicks it as a user does. */
  click<A extends unknown[]>(fn: PageFunction<A, Element | null>, ...args: A): Promise<void>;
  /** A PNG of the viewport. */
  screenshot(): Promise<Buffer>;
  close(): Promise<void>;
}

export interface EngineBrowser {
  readonly engine: Engine;
  /** A page of its own (no cookies or storage shared with another) at a size; `javaScript: false` runs none of the page's scripts. */
  newPage(size: Size, options?: { javaScript?: boolean }): Promise<EnginePage>;
  close(): Promise<void>;
}

const TIMEOUT_MS = 20_000;

/**
 * Whether an element holds still over an animation frame. A click goes to the point where the element
 * was: while states arrive and the layout moves, it would land beside it (playwright-core waits the same way).
 */
const settled = (el: Element) => new Promise<boolean>((resolve) => {
  const before = el.getBoundingClientRect();
  requestAnimationFrame(() => {
    const after = el.getBoundingClientRect();
    resolve(el.isConnected && after.width > 0 && before.x === after.x && before.y === after.y
      && before.width === after.width && before.height === after.height);
  });
});

export async function launchEngine(engine: Engine): Promise<EngineBrowser> {
  return engine === 'webkit' ? launchWebKit() : launchPuppeteer(engine);
}

async function launchPuppeteer(engine: 'chromium' | 'firefox'): Promise<EngineBrowser> {
  const start = (javaScript: boolean) => puppeteer.launch(engine === 'firefox'
    // Firefox ESR's WebDriver BiDi has no command that turns scripts off (emulation.setScriptingEnabled
    // is unknown to it): a browser of its own with the preference off.
    ? { browser: 'firefox', executablePath: FIREFOX_PATH, headless: true, ...(javaScript ? {} : { extraPrefsFirefox: { 'javascript.enabled': false } }) }
    : { browser: 'chrome', executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  const browser: PuppeteerBrowser = await start(true);
  let withoutScripts: Promise<PuppeteerBrowser> | undefined;
  return {
    engine,
    async newPage(size, { javaScript = true } = {}) {
      const owner = engine === 'firefox' && !javaScript ? await (withoutScripts ??= start(false)) : browser;
      const context = await owner.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ ...SIZES[size], deviceScaleFactor: 1 });
      if (!javaScript && engine === 'chromium') await page.setJavaScriptEnabled(false);
      return puppeteerPage(page, context);
    },
    async close() {
      await Promise.all([browser.close(), withoutScripts?.then((b) => b.close())]);
    },
  };
}

function puppeteerPage(page: Page, context: BrowserContext): EnginePage {
  return {
    async goto(url) {
      await page.goto(url, { waitUntil: 'load' });
    },
    url: async () => page.url(),
    async back() {
      await page.goBack();
    },
    evaluate: (fn, ...args) => page.evaluate(fn as (...a: unknown[]) => never, ...args),
    async waitFor(what, fn, ...args) {
      try {
        const handle = await page.waitForFunction(fn as (...a: unknown[]) => unknown, { timeout: TIMEOUT_MS, polling: 'raf' }, ...args);
        return (await handle.jsonValue()) as NonNullable<Awaited<ReturnType<typeof fn>>>;
      } catch (error) {
        throw new Error(`waited ${TIMEOUT_MS} ms for ${what} at ${page.url()}`, { cause: error });
      }
    },
    async click(fn, ...args) {
      const handle = await page.waitForFunction(fn as (...a: unknown[]) => Element | null, { timeout: TIMEOUT_MS, polling: 'raf' }, ...args)
        .catch((error: unknown) => { throw new Error(`waited ${TIMEOUT_MS} ms for something to click: ${fn.toString()}`, { cause: error }); });
      const element = handle.asElement() as ElementHandle<Element>;
      await page.waitForFunction(settled, { timeout: TIMEOUT_MS, polling: 'raf' }, element);
      await element.click();
    },
    screenshot: async () => Buffer.from(await page.screenshot({ type: 'png' })),
    close: () => context.close(),
  };
}

/** One WebDriver session a page: each is its own MiniBrowser, so nothing is shared between pages. */
async function launchWebKit(): Promise<EngineBrowser> {
  const server = await startWebKitDriver();
  const sessions = new Set<WebdriverIO.Browser>();
  return {
    engine: 'webkit',
    async newPage(size, { javaScript = true } = {}) {
      const capabilities = webkitCapabilities();
      // MiniBrowser's own switch for WebKitSettings' enable-javascript.
      if (!javaScript) capabilities['webkitgtk:browserOptions'].args.push('--enable-javascript=false');
      const driver = await remote({ hostname: '127.0.0.1', port: server.port, capabilities, logLevel: 'error' });
      sessions.add(driver);
      await resizeViewport(driver, SIZES[size].width, SIZES[size].height);
      return webdriverPage(driver, () => sessions.delete(driver));
    },
    async close() {
      await Promise.allSettled([...sessions].map((driver) => driver.deleteSession()));
      await server.stop();
    },
  };
}

function webdriverPage(driver: WebdriverIO.Browser, forget: () => void): EnginePage {
  // webdriverio serialises the function and its arguments itself, as puppeteer does.
  const run = <A extends unknown[], T>(fn: PageFunction<A, T>, args: A) =>
    driver.execute(fn as (...a: unknown[]) => T, ...args) as Promise<T>;
  return {
    async goto(url) {
      await driver.navigateTo(url);
    },
    url: () => driver.getUrl(),
    back: () => driver.back(),
    evaluate: (fn, ...args) => run(fn, args),
    async waitFor(what, fn, ...args) {
      let value: Awaited<ReturnType<typeof fn>> | undefined;
      try {
        await driver.waitUntil(async () => Boolean(value = await run(fn, args)), { timeout: TIMEOUT_MS, interval: 50 });
      } catch (error) {
        throw new Error(`waited ${TIMEOUT_MS} ms for ${what} at ${await driver.getUrl().catch(() => '?')}`, { cause: error });
      }
      return value as NonNullable<typeof value>;
    },
    async click(fn, ...args) {
      const reference = await this.waitFor(`something to click: ${fn.toString()}`, fn, ...args);
      await this.waitFor('it to hold still', settled, reference);
      // An element crosses WebDriver as a reference, which $ turns back into an element.
      await driver.$(reference as unknown as WebdriverIO.Element).click();
    },
    async screenshot() {
      // WebKitGTK's screenshot is the last painted frame, which may be behind the DOM: wait for two more.
      await driver.executeAsync((done: () => void) => requestAnimationFrame(() => requestAnimationFrame(() => done())));
      return Buffer.from(await driver.takeScreenshot(), 'base64');
    },
    async close() {
      forget();
      await driver.deleteSession();
    },
  };
}
