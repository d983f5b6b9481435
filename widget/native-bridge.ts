import type { BillView } from '../contract/bill-view.js';

/** What the element posts to the app that hosts it (`native-bridge`) or to the page that frames it (`parent-origin`). */
export interface BridgeMessage {
  type: 'bill-checkout';
  version: 1;
  event: 'created' | 'status' | 'final';
  bill: BillView;
}

interface Channel<T> {
  postMessage(message: T): void;
}

/** The channels native webviews inject into the page. */
interface HostWindow {
  ReactNativeWebView?: Channel<string>;
  webkit?: { messageHandlers?: { billCheckout?: Channel<BridgeMessage> } };
  BillCheckoutAndroid?: Channel<string>;
  BillCheckoutFlutter?: Channel<string>;
}

/**
 * Posts `message` to the first native channel there is (React Native, WKWebView, Android, Flutter)
 * when `native`, and to the framing page when `parentOrigin` names an origin: never to `*`, which
 * would hand the bill to whatever page frames this one.
 */
export function postToHost(message: BridgeMessage, native: boolean, parentOrigin: string | undefined): void {
  const w = window as HostWindow & Window;
  if (native) {
    const apple = w.webkit?.messageHandlers?.billCheckout;
    const json = JSON.stringify(message);
    if (w.ReactNativeWebView) w.ReactNativeWebView.postMessage(json);
    else if (apple) apple.postMessage(message);
    else (w.BillCheckoutAndroid ?? w.BillCheckoutFlutter)?.postMessage(json);
  }
  if (parentOrigin && w.parent !== w) {
    try {
      // An origin only: `*`, `/` and anything that is not a URL throw here and post nothing.
      const { origin } = new URL(parentOrigin);
      if (origin !== 'null') w.parent.postMessage(message, origin);
    } catch {
      // Not an origin: nothing is posted.
    }
  }
}
