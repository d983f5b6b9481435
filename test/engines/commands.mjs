// Server commands the widget tests use the same way in every engine. @web/test-runner-commands
// covers puppeteer (Chromium over CDP, Firefox over BiDi) only in part and WebDriver less: no key
// chords there, no viewport, and no media emulation outside CDP.
import { resizeViewport } from './webkit-driver.mjs';

const webdriverKeys = { Tab: '\uE004', Enter: '\uE007', Shift: '\uE008', Control: '\uE009', Space: '\uE00D', Escape: '\uE00C' };
// Puppeteer's BiDi keyboard knows the space bar only as ' '; CDP takes either.
const puppeteerKeys = { Space: ' ' };

/** The engine a session runs in, from its launcher's name. */
function engineOf(session) {
  const name = session.browser.name.toLowerCase();
  return name.includes('firefox') ? 'firefox' : name.includes('webkit') ? 'webkit' : 'chromium';
}

async function press(session, chord) {
  const keys = chord.split('+');
  if (session.browser.type === 'webdriver') {
    const codes = keys.map((key) => webdriverKeys[key] ?? key);
    const driver = session.browser.driver;
    await driver.performActions([{
      type: 'key',
      id: 'keyboard',
      actions: [...codes.map((value) => ({ type: 'keyDown', value })), ...codes.reverse().map((value) => ({ type: 'keyUp', value }))],
    }]);
    await driver.releaseActions();
    return;
  }
  const { keyboard } = session.browser.getPage(session.id);
  const names = keys.map((key) => puppeteerKeys[key] ?? key);
  for (const name of names.slice(0, -1)) await keyboard.down(name);
  await keyboard.press(names.at(-1));
  for (const name of names.slice(0, -1).reverse()) await keyboard.up(name);
}

async function resize(session, { width, height }) {
  if (session.browser.type === 'webdriver') return resizeViewport(session.browser.driver, width, height);
  const page = session.browser.getPage(session.id);
  await page.setViewport({ width, height });
  // Evaluated in the page: the script's text (browser globals are not this module's).
  return page.evaluate('({ width: innerWidth, height: innerHeight })');
}

/**
 * `engine` → 'chromium' | 'webkit' | 'firefox'; `press-keys` {keys: 'Shift+Tab'} → a chord held and
 * released in order; `resize` {width, height} → the viewport's size afterwards (a window has a
 * minimum size in some engines).
 */
export function engineCommands() {
  return {
    name: 'engine-commands',
    async executeCommand({ command, payload, session }) {
      if (command === 'engine') return engineOf(session);
      if (command === 'press-keys') {
        await press(session, payload.keys);
        return true;
      }
      if (command === 'resize') return resize(session, payload);
      return undefined;
    },
  };
}
