// The merchant's page of bench/phone.mjs, one for each checkout: the same head and order, the
// checkout's element under it, its script at the end. bench/lib/phone-peers.mjs serves the peers'
// and the page without a checkout; bench/phone.mjs renders <bill-checkout>'s per visit.

const escape = (value) => String(value).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The page: `head` (more of the head), `checkout` (the markup under the order), `script` (a module's URL). */
function page({ head = '', checkout = '', script }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Checkout</title>
${head}</head>
<body>
<main>
  <h1>Your order</h1>
  <p>Risograph poster, 12.50</p>
${checkout ? `  ${checkout}\n` : ''}</main>
${script ? `<script type="module" src="${script}"></script>\n` : ''}</body>
</html>
`;
}

// A BOLT 11 example invoice (valid checksum and signature): decoded and encoded, never paid.
const invoice = 'lnbc2500u1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu9qrsgquk0rl77nj30yxdy8j9vdx85fkpmdla2087ne0xh8nhedh8w27kyke0lp53ut353s06fv3qfegext0eh0ymjpf39tuven09sam30g4vgpfna3rh';
const modeAttribute = (mode) => (mode ? ` mode="${escape(mode)}"` : '');

/** The pre-created page (below), loading the element from `script`. */
function preCreated({ billId, token, mode, script }) {
  return page({
    head: `<link rel="preload" as="fetch" crossorigin href="/api/bills/${escape(encodeURIComponent(billId))}?token=${escape(encodeURIComponent(token))}">\n`,
    checkout: `<bill-checkout bill-id="${escape(billId)}" token="${escape(token)}"${modeAttribute(mode)}></bill-checkout>`,
    script,
  });
}

/** Each page by name (served as `/<name>.html`): a function of the values it is rendered with. */
export const pages = {
  // No checkout: what the merchant's page costs by itself on the phone (a fresh renderer, its first layout and paint).
  'page-alone': () => page({}),
  // Adyen Web's core and PayNow QR component, mounted by bench/pages/adyen.js.
  adyen: () => page({
    head: '<link rel="stylesheet" href="/peers/adyen/adyen.css">\n',
    checkout: '<div id="checkout"></div>',
    script: '/peers/adyen/adyen.js',
  }),
  // Bitcoin Connect's pay button; bench/pages/bitcoin-connect.js opens its payment modal.
  'bitcoin-connect': () => page({
    checkout: `<bc-pay-button invoice="${invoice}"></bc-pay-button>`,
    script: '/peers/bitcoin-connect/bitcoin-connect.js',
  }),
  // A BIP 21 pair (an example address and the invoice above).
  'bitcoin-qr': () => page({
    checkout: `<bitcoin-qr bitcoin="bc1qylh3u67j673h6y6alv70m0pl2yz53tzhvxgg7u" lightning="${invoice}" width="240" height="240" type="svg"></bitcoin-qr>`,
    script: '/peers/bitcoin-qr/bitcoin-qr.js',
  }),
  // As README "Embedding" and demo/plain.html: the merchant's server put the order and its ticket here.
  'script-tag': ({ orderId, orderTicket, mode }) => page({
    checkout: `<bill-checkout order-id="${escape(orderId)}" order-ticket="${escape(orderTicket)}"${modeAttribute(mode)}></bill-checkout>`,
    script: '/bill-checkout.js',
  }),
  // The merchant's server created the bill while it rendered this page: the element only reads it,
  // and the page starts that read while the element's script is still on its way (README, "A bill
  // your server created"): the element's fetch of the same URL takes the preloaded answer.
  'pre-created': ({ billId, token, mode }) => preCreated({ billId, token, mode, script: '/bill-checkout.js' }),
  // Issue 34: the merchant's server created the bill and put the checkout's markup in the page
  // (renderCheckout: the card in a declarative shadow root, the QR code as inline SVG), the drop-in's
  // script after it to take it over.
  'server-rendered': ({ checkout }) => page({ checkout, script: '/bill-checkout.js' }),
  // Issue 34's floor: the least a QR code in the HTML can be. The server's SVG of it (qr-images.ts)
  // straight in the page: no shadow root, style, text or script around it.
  'qr-in-html': ({ svg }) => page({ checkout: svg }),
  // The same page with the floor under the drop-in (bench/pages/lit-qr-floor.ts, served at /floor/).
  'lit-qr-floor': ({ billId, token, mode }) => preCreated({ billId, token, mode, script: '/floor/bill-checkout.js' }),
};
