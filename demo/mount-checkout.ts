// Puts a <bill-checkout> into a host element and wires its events, the way a merchant's page does.
import type { BillView } from '../contract/bill-view.js';

export interface MountOptions {
  attributes: Record<string, string>;
  onCreated?(bill: BillView): void;
  onStatus?(bill: BillView): void;
  onFinal?(bill: BillView): void;
  onError?(error: Error): void;
}

export function mountCheckout(host: Element, options: MountOptions): HTMLElement {
  const el = document.createElement('bill-checkout');
  for (const [name, value] of Object.entries(options.attributes)) el.setAttribute(name, value);
  el.addEventListener('bill-created', (e) => options.onCreated?.(e.detail));
  el.addEventListener('bill-status', (e) => options.onStatus?.(e.detail));
  el.addEventListener('bill-final', (e) => options.onFinal?.(e.detail));
  el.addEventListener('bill-error', (e) => options.onError?.(e.detail));
  host.replaceChildren(el);
  return el;
}
