// The three engines customers pay in, as @web/test-runner launchers: Debian's Chromium (CDP through
// puppeteer-core), WebKitGTK (its own WebDriver server under Xvfb) and Firefox ESR (WebDriver BiDi
// through puppeteer-core). Nothing here downloads a browser or a driver.
import { chromeLauncher } from '@web/test-runner-chrome';
import { WebdriverLauncher } from '@web/test-runner-webdriver';
import * as puppeteerCore from 'puppeteer-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, FIREFOX_PATH, selectedEngines } from './engines.mjs';
import { within } from '../support/promises.mjs';
import { startWebKitDriver, webkitCapabilities } from './webkit-driver.mjs';

// MiniBrowser opens a test page in 0.1–1 s. Once (session 18's CI) a navigation never ended: the
// library sends it without waiting, so wdio's own 120 s abort became an uncaught rejection that
// stopped the whole runner. Past this deadline the browser is replaced and the page opened again.
const OPEN_PAGE_MS = 20_000;

/** WebdriverLauncher that owns its WebKitWebDriver: started before the first session, stopped with the runner. */
class WebKitLauncher extends WebdriverLauncher {
  constructor() {
    super({ hostname: '127.0.0.1', port: 0, capabilities: webkitCapabilities(), logLevel: 'error' });
  }

  async initialize(config, testFiles) {
    this.server = await startWebKitDriver();
    this.options.port = this.server.port;
    await super.initialize(config, testFiles);
    this.name = 'WebKit';
  }

  /** Opens the test page and waits for it (the library does not), in a new MiniBrowser if the first one hangs. */
  async startSession(id, url) {
    await this.ensureManagerInitialized();
    for (let attempt = 1; ; attempt++) {
      try {
        return await within(this.driverManager.startSession(id, url), OPEN_PAGE_MS, `opening the test page took more than ${OPEN_PAGE_MS / 1000} s`);
      } catch (error) {
        // Not left to the next test file either way.
        await this.replaceBrowser();
        if (attempt === 2) throw new Error(`${error.message}, in two MiniBrowsers one after the other`);
        process.stderr.write(`WebKit: ${error.message}; opening it again in a new MiniBrowser\n`);
      }
    }
  }

  /**
   * A new WebKitWebDriver, Xvfb and MiniBrowser: the old ones may not answer, so they are ended, not
   * asked (wdio then logs its retry of the old navigation failing with ECONNREFUSED: expected).
   */
  async replaceBrowser() {
    clearInterval(this.pendingHeartbeat);
    this.driver = undefined;
    this.driverManager = undefined;
    await this.server.stop();
    this.server = await startWebKitDriver();
    this.options.port = this.server.port;
    await this.ensureManagerInitialized();
  }

  async stop() {
    await super.stop();
    await this.server?.stop();
  }
}

const launchers = {
  // Named for what Debian ships, not the 'Chrome' the launcher calls every CDP browser.
  chromium: () => Object.assign(chromeLauncher({ launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS } }), { name: 'Chromium' }),
  webkit: () => new WebKitLauncher(),
  firefox: () => chromeLauncher({
    puppeteer: puppeteerCore,
    launchOptions: { browser: 'firefox', executablePath: FIREFOX_PATH, headless: true },
  }),
};

/** One launcher per engine in ENGINES (a comma-separated subset of chromium,webkit,firefox; all by default). */
export function engineLaunchers() {
  return selectedEngines().map((engine) => launchers[engine]());
}
