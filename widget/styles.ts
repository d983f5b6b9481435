import { unsafeCSS } from 'lit';
import { cardCss } from './card/styles.js';

/** The card's styles (widget/card/styles.ts), which the server also writes into the markup it sends. */
export const styles = unsafeCSS(cardCss);
