// The card's CSS as plain text: the element adopts it (widget/styles.ts, through Lit's unsafeCSS),
// the server writes it in the declarative shadow root it sends (server/http/render/). The build
// minifies the templates below in both (scripts/build.mjs, minifyCss).
export const cardCss = /* css */ `
  :host {
    /*
     * No surface of its own: the card is drawn on the page's (or its card's), in its colours, light
     * or dark, and in its type: no font of its own unless --bill-checkout-font names one (a font the
     * page does not use would be one more to find and load before the first paint).
     */
    --_accent: var(--bill-checkout-accent, #0b57d0);
    display: block;
    color: var(--bill-checkout-color);
    font-size: 1rem;
    line-height: 1.4;
    font-family: var(--bill-checkout-font);
  }
  [part~='base'] {
    display: grid;
    gap: 0.75rem;
    text-align: center;
    padding: 1rem;
    background: var(--bill-checkout-background);
    border: 1px solid var(--bill-checkout-border-color, #8e9099);
    border-radius: var(--bill-checkout-radius, 0.75rem);
    overflow-wrap: anywhere;
  }
  :host([variant~=embedded]) [part~='base'] {
    padding: 0;
    border: 0;
  }
  p,
  h2 {
    margin: 0;
  }
  .muted {
    opacity: 0.8;
  }
  [part~='amount'] {
    font-size: 1.75rem;
    font-weight: 700;
  }
  [part~='qr'],
  .icon {
    justify-self: center;
  }
  [part~='qr'] {
    width: min(var(--bill-checkout-qr-size, 15rem), 100%);
    fill: #fff;
  }
  [part~='qr'] path {
    stroke: #000;
  }
  button,
  a {
    /* Buttons are border-box already: the link too, so that it is as tall as they are. */
    box-sizing: border-box;
    font: inherit;
    min-height: 2.75rem;
    padding: 0.5rem 1rem;
    border-radius: 0.5rem;
    border: 0;
    background: none;
    color: inherit;
    text-decoration: underline;
  }
  .primary {
    background: var(--_accent);
    color: var(--bill-checkout-accent-color, #fff);
    font-weight: 600;
    text-decoration: none;
  }
  a,
  .more,
  [part~='cancel-confirm'] {
    display: flex;
    flex-wrap: wrap;
    place-content: center;
    /* The question "Cancel this payment?" on the middle line of its Yes and No, not at their top. */
    align-items: center;
  }
  :focus-visible {
    outline: 3px solid var(--_accent);
    outline-offset: 2px;
  }
  .icon {
    width: 3rem;
    fill: none;
    stroke: currentColor;
    stroke-width: 2.5;
    stroke-linecap: round;
  }
  .paid {
    color: var(--bill-checkout-success, #2e9d4a);
  }
  .failed {
    color: var(--bill-checkout-danger, #e0443a);
  }
  .cancelled,
  .expired {
    color: var(--bill-checkout-warning, #b57c00);
  }
  .strong {
    font-weight: 600;
  }
  .sr {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
`;

/**
 * What only the server's markup needs, written after `cardCss` in its `<style>`, which the element
 * keeps when it takes the markup over: the expiry line that a page without JavaScript and a printed
 * page show in place of the countdown, the controls that need JavaScript hidden without it, and a
 * printed page (the QR code, the amount, the reference and the expiry, on one page).
 */
export const serverCss = /* css */ `
  .print {
    display: none;
  }
  @media (scripting: none) {
    .more,
    .print + [part~='countdown'] {
      display: none;
    }
    .print {
      display: block;
    }
  }
  @media print {
    [part~='base'] {
      break-inside: avoid;
    }
    .more,
    .print + [part~='countdown'],
    [part~='status'] {
      display: none;
    }
    .print {
      display: block;
    }
    [part~='qr'] {
      width: 6cm;
    }
  }
`;
