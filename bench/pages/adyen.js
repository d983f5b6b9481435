// The merchant's code for Adyen Web: its core and the PayNow QR component, shown from the action
// a /payments call answers. Fake but well-formed configuration; the environment's URLs point at
// the bench's stub of Adyen's servers (bench/lib/phone-peers.mjs), which draw the QR as an image.
/* global location */
import { AdyenCheckout, PayNow } from '@adyen/adyen-web';
import '@adyen/adyen-web/styles/adyen.css';

const adyen = `${location.origin}/checkoutshopper-test/`;
const checkout = await AdyenCheckout({
  clientKey: 'test_BENCH7N3XKQ2LZ4VMTG5RWYAP6HDJC8UF',
  environment: 'test',
  _environmentUrls: { api: adyen, analytics: adyen, cdn: { images: adyen, translations: adyen } },
  analytics: { enabled: false },
  countryCode: 'SG',
  locale: 'en-US',
  amount: { value: 1250, currency: 'SGD' },
  onPaymentCompleted() {},
  onPaymentFailed() {},
  onError() {},
});
performance.mark('defined');
// The qrCode action of a PayNow payment.
new PayNow(checkout, {
  paymentMethodType: 'paynow',
  type: 'qrCode',
  paymentData: 'Ab02b4c0!BQABAgCW5sxB4e/==',
  qrCodeData: '00020101021226370009SG.PAYNOW010120213201234567XBEN03011520400005303702540512.505802SG5914BENCH MERCHANT6009SINGAPORE62230119ADYEN-BENCH-0000001630409A3',
}).mount('#checkout');
