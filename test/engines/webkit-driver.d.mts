export const MINIBROWSER: string;
export function webkitCapabilities(): {
  browserName: string;
  'webkitgtk:browserOptions': { binary: string; args: string[] };
  'wdio:enforceWebDriverClassic': true;
};
/** Starts `xvfb-run WebKitWebDriver` on a free loopback port and resolves once it answers /status. */
export function startWebKitDriver(): Promise<{ port: number; stop(): Promise<void> }>;
/** Gives a webdriverio session's page the size asked for, as far as the window may shrink; answers the size it got. */
export function resizeViewport(driver: WebdriverIO.Browser, width: number, height: number): Promise<{ width: number; height: number }>;
