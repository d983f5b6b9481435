import { css } from 'lit';

export const styles = css`
  :host {
    /* System colors follow the page's (or the OS's) color scheme; set color-scheme on the element to pin one. */
    color-scheme: light dark;
    --_bg: var(--bill-checkout-background, Canvas);
    --_fg: var(--bill-checkout-color, CanvasText);
    --_line: var(--bill-checkout-border-color, #8e9099);
    --_accent: var(--bill-checkout-accent, #0b57d0);
    --_on-accent: var(--bill-checkout-accent-color, #fff);
    --_ok: var(--bill-checkout-success, #2e9d4a);
    --_bad: var(--bill-checkout-danger, #e0443a);
    --_warn: var(--bill-checkout-warning, #b57c00);
    display: block;
    color: var(--_fg);
    font: 1rem/1.4 var(--bill-checkout-font, system-ui,sans-serif);
  }
  [part~='base'] {
    display: grid;
    gap: 0.75rem;
    justify-items: center;
    text-align: center;
    padding: 1rem;
    background: var(--_bg);
    border: 1px solid var(--_line);
    border-radius: var(--bill-checkout-radius, 0.75rem);
    overflow-wrap: anywhere;
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
  [part~='qr'] {
    width: min(var(--bill-checkout-qr-size, 15rem), 100%);
    fill: #fff;
  }
  [part~='qr'] path {
    fill: #000;
  }
  button,
  a {
    /* Buttons are border-box already: the link too, so that it is as tall as they are. */
    box-sizing: border-box;
    font: inherit;
    min-height: 2.75rem;
    padding: 0.5rem 1rem;
    border-radius: 0.5rem;
    border: 1px solid var(--_line);
    background: none;
    color: inherit;
    text-decoration: none;
  }
  .primary {
    background: var(--_accent);
    color: var(--_on-accent);
    font-weight: 600;
  }
  a,
  [part~='cancel-confirm'] {
    display: flex;
    align-items: center;
    gap: 0.5rem;
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
    color: var(--_ok);
  }
  .failed {
    color: var(--_bad);
  }
  .cancelled,
  .expired {
    color: var(--_warn);
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
