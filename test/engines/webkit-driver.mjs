// WebKitGTK's own WebDriver server (Debian's webkit2gtk-driver), started under a virtual display:
// MiniBrowser has no headless mode, so Xvfb is its screen.
import { spawn } from 'node:child_process';
import { freePort } from '../support/ports.mjs';

export const MINIBROWSER = process.env.WEBKIT_MINIBROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** The capabilities that open MiniBrowser under automation over classic WebDriver (the driver refuses BiDi). */
export function webkitCapabilities() {
  return {
    browserName: 'MiniBrowser',
    'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
    'wdio:enforceWebDriverClassic': true,
  };
}

/**
 * Starts `xvfb-run WebKitWebDriver` on a free loopback port and resolves once it answers /status.
 * @returns {Promise<{ port: number, stop(): Promise<void> }>}
 */
export async function startWebKitDriver() {
  const port = await freePort();
  // -a picks a free display; the server's own process group lets stop() end Xvfb, the driver and MiniBrowser together.
  const child = spawn('xvfb-run', ['-a', '-s', '-screen 0 1280x1024x24', 'WebKitWebDriver', `--port=${port}`, '--host=127.0.0.1'],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr = (stderr + chunk).slice(-2000); });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
    await exited;
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`WebKitWebDriver exited (${child.exitCode}): ${stderr.trim() || 'no output'}. Install it with: apt-get install webkit2gtk-driver xvfb`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/status`);
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`WebKitWebDriver did not answer on port ${port} within 15 s: ${stderr.trim() || 'no output'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, stop };
}

/**
 * Gives a webdriverio session's page the size asked for, as far as the window may shrink (MiniBrowser
 * stops at about 447 px wide); answers the size it got. WebDriver sizes the window: the browser's
 * frame around the page is added.
 */
export async function resizeViewport(driver, width, height) {
  const [dx, dy] = await driver.execute('return [outerWidth - innerWidth, outerHeight - innerHeight]');
  await driver.setWindowSize(width + dx, height + dy);
  return driver.execute('return { width: innerWidth, height: innerHeight }');
}
