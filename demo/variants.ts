// Button mode and a themed element, each paying a fresh order of its own.
import '../widget/index.js';
import { freshOrderId } from './checkout-store.js';
import { mountCheckout } from './mount-checkout.js';

mountCheckout(document.getElementById('button-slot')!, {
  attributes: { 'order-id': freshOrderId('tee'), mode: 'button', cancellable: '' },
});
mountCheckout(document.getElementById('theme-slot')!, {
  attributes: { 'order-id': freshOrderId('beans'), mode: 'qr' },
});
