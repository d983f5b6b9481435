// `bill-checkout/react`: <BillCheckout>, the element for React 19 (a Client Component in Next.js's
// App Router: client.ts). Given `markup` (renderCheckout's output), the server's HTML holds the whole card
// and the client hydrates it without a warning. The element itself is defined in the browser only,
// after the event props listen, so that its first event is never missed and a server bundle never
// evaluates it.
import { createElement, useEffect, useImperativeHandle, useRef, useSyncExternalStore, type CSSProperties, type ReactElement, type Ref } from 'react';
import type { BillCheckout as BillCheckoutElement } from '../widget/bill-checkout.js';
import type { BillCreatedEvent, BillErrorEvent, BillFinalEvent, BillStatusEvent, BillTicketExpiredEvent } from '../widget/events.js';
import type { Strings } from '../widget/strings.js';

export type { BillCheckoutElement };

/** The element's events as props: each called with the element's own event class. */
export interface BillCheckoutEventProps {
  onBillCreated?: (event: BillCreatedEvent) => void;
  onBillStatus?: (event: BillStatusEvent) => void;
  onBillFinal?: (event: BillFinalEvent) => void;
  onBillError?: (event: BillErrorEvent) => void;
  onBillTicketExpired?: (event: BillTicketExpiredEvent) => void;
}

export interface BillCheckoutProps extends BillCheckoutEventProps {
  /**
   * The element as `renderCheckout` (bill-checkout/server/render) or the BFF's `checkout.html` wrote
   * it: its attributes and its declarative shadow root. The props below override its attributes.
   */
  markup?: string;
  endpoint?: string;
  orderId?: string;
  orderTicket?: string;
  amount?: string;
  billId?: string;
  token?: string;
  mode?: BillCheckoutElement['mode'];
  locale?: string;
  cancellable?: boolean;
  allowedSchemes?: string;
  nativeBridge?: boolean;
  parentOrigin?: string;
  goldUnit?: string;
  /** A property only: set on the element in the browser. */
  strings?: Partial<Strings>;
  id?: string;
  className?: string;
  style?: CSSProperties;
  ref?: Ref<BillCheckoutElement>;
}

const EVENTS = {
  onBillCreated: 'bill-created',
  onBillStatus: 'bill-status',
  onBillFinal: 'bill-final',
  onBillError: 'bill-error',
  onBillTicketExpired: 'bill-ticket-expired',
} as const satisfies Record<keyof BillCheckoutEventProps, string>;

const ATTRIBUTES = {
  endpoint: 'endpoint',
  orderId: 'order-id',
  orderTicket: 'order-ticket',
  amount: 'amount',
  billId: 'bill-id',
  token: 'token',
  mode: 'mode',
  locale: 'locale',
  cancellable: 'cancellable',
  allowedSchemes: 'allowed-schemes',
  nativeBridge: 'native-bridge',
  parentOrigin: 'parent-origin',
  goldUnit: 'gold-unit',
} as const;

const HOST = /^\s*<bill-checkout\b([^>]*)>([\s\S]*)<\/bill-checkout>\s*$/;
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
const ENTITY = /&(?:#x([0-9a-f]+)|#(\d+)|(amp|lt|gt|quot|apos));/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(ENTITY, (_, hex?: string, dec?: string, name?: string) =>
    hex ? String.fromCodePoint(parseInt(hex, 16)) : dec ? String.fromCodePoint(Number(dec)) : NAMED[name!.toLowerCase()]!);
}

/** The host's attributes and its inner HTML (the declarative shadow root) from server markup. */
function splitMarkup(markup: string): { attributes: Record<string, string>; inner: string } {
  const host = HOST.exec(markup);
  if (!host) throw new Error('BillCheckout: markup is not one <bill-checkout> element (give renderCheckout\'s output)');
  const attributes: Record<string, string> = {};
  for (const [, name, double, single, bare] of host[1]!.matchAll(ATTRIBUTE)) attributes[name!.toLowerCase()] = decode(double ?? single ?? bare ?? '');
  return { attributes, inner: host[2]! };
}

let defined: Promise<unknown> | undefined;
const unsubscribed = () => () => undefined;

export function BillCheckout(props: BillCheckoutProps): ReactElement {
  const { markup, strings, id, className, style, ref } = props;
  const host = useRef<BillCheckoutElement>(null);
  const latest = useRef<BillCheckoutEventProps>(props);
  useImperativeHandle(ref, () => host.current!, []);

  useEffect(() => {
    latest.current = props;
  });

  useEffect(() => {
    const element = host.current!;
    const listeners = Object.entries(EVENTS).map(([prop, type]) => {
      // The latest prop at each event: a new handler each render re-adds nothing.
      const listener = (event: Event) => (latest.current[prop as keyof BillCheckoutEventProps] as ((event: Event) => void) | undefined)?.(event);
      element.addEventListener(type, listener);
      return [type, listener] as const;
    });
    defined ??= import('bill-checkout');
    return () => {
      for (const [type, listener] of listeners) element.removeEventListener(type, listener);
    };
  }, []);

  useEffect(() => {
    // Before the upgrade too: Lit takes an own property over when the element is defined.
    if (strings) host.current!.strings = strings;
  }, [strings]);

  // True on the server and while hydrating its HTML, false in a render of the client's own (a
  // client-side navigation), where innerHTML would not make a shadow root and Chromium warns of the
  // template: the element then draws the bill itself.
  const fromServer = useSyncExternalStore(unsubscribed, () => false, () => true);
  const split = markup === undefined ? undefined : splitMarkup(markup);
  const attributes: Record<string, string | true | undefined> = { ...split?.attributes };
  for (const [prop, attribute] of Object.entries(ATTRIBUTES)) {
    const value = props[prop as keyof typeof ATTRIBUTES];
    if (value === undefined) continue;
    // React 19 writes `true` as a present attribute (a property once upgraded) and drops `false`.
    attributes[attribute] = value === false ? undefined : value;
  }
  return createElement('bill-checkout', {
    ...attributes,
    id,
    className,
    style,
    ref: host,
    // The browser turns the server's <template shadowrootmode> into the shadow root, so the host's
    // innerHTML is no longer the markup: React's development build would report that difference.
    ...(split && fromServer && { dangerouslySetInnerHTML: { __html: split.inner }, suppressHydrationWarning: true }),
  });
}
