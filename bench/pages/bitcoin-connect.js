// The merchant's code for Bitcoin Connect: the pay button is in the page, and the payment modal
// opens at once with its invoice (as a tap on the button does), the view the customer pays from.
/* global document */
import { init, launchPaymentModal } from '@getalby/bitcoin-connect';

init({ appName: 'Bench shop' });
launchPaymentModal({ invoice: document.querySelector('bc-pay-button').getAttribute('invoice') });
