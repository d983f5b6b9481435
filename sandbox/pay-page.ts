// The pay page at billUrl: one self-contained HTML document (no external resources), every piece
// of service text escaped.
import type { StatusKey } from './dialect.js';
import type { StatusRecordWire } from './types.js';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Decimal text shown with at least two decimal places: "12.5" → "12.50". */
export function money(amount: string): string {
  const [int, frac = ''] = amount.split('.');
  return `${int}.${frac.padEnd(2, '0')}`;
}

function timeLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')}`;
}

export interface PayPageModel {
  record: StatusRecordWire;
  /** Styles the final state whatever code the dialect gives it. */
  state: StatusKey;
  requireGCAmount: string;
  /** Milliseconds until expiredOn by the sandbox's clock. */
  msLeft: number;
  /** Path of the page itself; the forms post to `{pagePath}/pay` and `{pagePath}/decline`. */
  pagePath: string;
  /** Back to the merchant, for a final bill. */
  returnUrl: string;
  nonce: string;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f3f4f6;color:#111827;
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:min(calc(100% - 2rem),28rem);margin:1rem 0;padding:1.5rem;background:#fff;border-radius:1rem;
box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.1rem;margin:0 0 1rem;color:#4b5563;font-weight:600}
.amount{font-size:2.25rem;font-weight:700;margin:0;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:1rem 0}
dt{color:#6b7280}dd{margin:0;text-align:right;overflow-wrap:anywhere}
[data-field="billId"]{font:.85rem/1.6 ui-monospace,SFMono-Regular,Menlo,monospace}
.actions{display:flex;flex-direction:column;gap:.75rem;margin-top:1.5rem}
button,.button{display:block;width:100%;min-height:3rem;border:0;border-radius:.75rem;font:inherit;
font-weight:600;cursor:pointer;text-align:center;text-decoration:none;padding:.75rem}
.pay{background:#15803d;color:#fff}.decline{background:#e5e7eb;color:#111827}
button:disabled{opacity:.5;cursor:not-allowed}
.state{font-size:1.25rem;font-weight:700;margin:1rem 0 0}
.state-paid{color:#15803d}.state-failed,.state-expired{color:#b91c1c}.state-cancelled{color:#6b7280}
.sandbox{margin:1rem 0 0;font-size:.8rem;color:#6b7280;text-align:center}
@media (min-width:48rem){main{padding:2rem}.actions{flex-direction:row-reverse}}
`;

// Counts down from the sandbox's own figure (not the browser's clock), then disables the buttons.
const SCRIPT = `
const el=document.getElementById('time-left');
if(el){const end=performance.now()+Number(el.dataset.msLeft);
const tick=()=>{const s=Math.max(0,Math.ceil((end-performance.now())/1000));
el.textContent=Math.floor(s/60)+':'+String(s%60).padStart(2,'0');
if(s===0){for(const b of document.querySelectorAll('button'))b.disabled=true;
el.textContent='Expired';clearInterval(t);}};const t=setInterval(tick,1000);}
`;

function shell(title: string, body: string, nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
<p class="sandbox">Sandbox of the bill payment service: no real money moves.</p>
</main>
<script nonce="${escapeHtml(nonce)}">${SCRIPT}</script>
</body>
</html>`;
}

export function renderPayPage(m: PayPageModel): string {
  const r = m.record;
  const details = `<h1>Pay bill <span data-field="merchantReference">${escapeHtml(r.merchantReference)}</span></h1>
<p class="amount" data-field="amount">${escapeHtml(money(r.billAmount))} ${escapeHtml(r.currency)}</p>
<dl>
<dt>Gold-conversion amount</dt><dd data-field="requireGCAmount">${escapeHtml(m.requireGCAmount)} GC</dd>
<dt>Bill</dt><dd data-field="billId">${escapeHtml(r.billId)}</dd>
${r.isFinal ? '' : `<dt>Time left</dt><dd><span id="time-left" role="timer" data-ms-left="${Math.max(0, m.msLeft)}">${timeLeft(m.msLeft)}</span></dd>`}
</dl>`;
  const path = escapeHtml(m.pagePath);
  const actions = r.isFinal
    ? `<p class="state state-${m.state}" data-field="status" role="status">${escapeHtml(r.statusName)}</p>
<div class="actions"><a class="button decline" href="${escapeHtml(m.returnUrl)}">Return to the merchant</a></div>`
    : `<div class="actions">
<form method="post" action="${path}/pay"><button class="pay" type="submit">Pay ${escapeHtml(money(r.billAmount))} ${escapeHtml(r.currency)}</button></form>
<form method="post" action="${path}/decline"><button class="decline" type="submit">Decline</button></form>
</div>`;
  return shell(`Pay ${money(r.billAmount)} ${r.currency}`, details + actions, m.nonce);
}

export function renderNotFoundPage(nonce: string): string {
  return shell('Bill not found', '<h1>Bill not found</h1><p>This bill does not exist. Check the link.</p>', nonce);
}

export function payPageHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': `default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; base-uri 'none'`,
  };
}
