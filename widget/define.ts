import { BillCheckout } from './bill-checkout.js';

if (!customElements.get('bill-checkout')) customElements.define('bill-checkout', BillCheckout);
