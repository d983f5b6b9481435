// The three engines customers pay in, as @web/test-runner launchers: Debian's Chromium (CDP through
// puppeteer-core), WebKitGTK (its own WebDriver server under Xvfb) and Firefox ESR (WebDriver BiDi
// through puppeteer-core). Nothing here downloads a browser or a driver.
import { chromeLauncher } from '@web/test-runner-chrome';
import { WebdriverLauncher } from '@web/test-runner-webdriver';
import * as puppeteerCore from 'puppeteer-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, FIREFOX_PATH, selectedEngines } from './engines.mjs';
import { startWebKitDriver, webkitCapabilities } from './webkit-driver.mjs';

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
