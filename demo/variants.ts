// Button mode and a themed element, each paying an order of its own that the shop's server minted.
import '../widget/index.js';
import { mountCheckout } from './mount-checkout.js';
import { newOrder, orderAttributes, problemText } from './new-order.js';
import { setUpPage } from './page-language.js';

const { lang, t } = setUpPage('navVariants');

async function mount(slotId: string, product: string, attributes: Record<string, string>): Promise<void> {
  const slot = document.getElementById(slotId)!;
  try {
    const order = await newOrder(product);
    mountCheckout(slot, { attributes: { ...orderAttributes(order), locale: lang, ...attributes } });
  } catch (error) {
    const alert = Object.assign(document.createElement('p'), {
      className: 'note alert',
      textContent: `${problemText(error, t)} ${t.reloadToTryAgain}`,
    });
    alert.setAttribute('role', 'alert');
    slot.replaceChildren(alert);
  }
}

// Inside the page's own card: embedded (no second border).
void mount('button-slot', 'tee', { mode: 'button', cancellable: '', variant: 'embedded' });
void mount('theme-slot', 'beans', { mode: 'qr' });
