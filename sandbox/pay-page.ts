// The pay page at billUrl: one self-contained HTML document (no external resources), every piece
// of service text escaped, in the customer's language.
import { escapeHtml } from '../contract/escape-html.js';
import type { Language } from '../contract/languages.js';
import type { StatusKey } from './dialect.js';
import type { StatusRecordWire } from './types.js';


interface PageText {
  payBill: string;
  gold: string;
  bill: string;
  timeLeft: string;
  pay: string;
  decline: string;
  back: string;
  notice: string;
  notFound: string;
  notFoundText: string;
  /** Names of the states shown on the page: final and processing (English shows the service's own statusName instead). */
  states: Record<StatusKey, string>;
}

const TEXT: Record<Language, PageText> = {
  en: {
    payBill: 'Pay bill', gold: 'Gold-conversion amount', bill: 'Bill', timeLeft: 'Time left', pay: 'Pay',
    decline: 'Decline', back: 'Return to the merchant',
    notice: 'Sandbox of the bill payment service: no real money moves.',
    notFound: 'Bill not found', notFoundText: 'This bill does not exist. Check the link.',
    states: { pending: 'Pending payment', paid: 'Paid', failed: 'Failed', cancelled: 'Cancelled', expired: 'Expired', processing: 'Processing payment' },
  },
  id: {
    payBill: 'Bayar tagihan', gold: 'Jumlah konversi emas', bill: 'Tagihan', timeLeft: 'Sisa waktu', pay: 'Bayar',
    decline: 'Tolak', back: 'Kembali ke penjual',
    notice: 'Sandbox layanan pembayaran tagihan: tidak ada uang sungguhan yang berpindah.',
    notFound: 'Tagihan tidak ditemukan', notFoundText: 'Tagihan ini tidak ada. Periksa tautannya.',
    states: { pending: 'Menunggu pembayaran', paid: 'Dibayar', failed: 'Gagal', cancelled: 'Dibatalkan', expired: 'Kedaluwarsa', processing: 'Pembayaran sedang diproses' },
  },
  ms: {
    payBill: 'Bayar bil', gold: 'Amaun penukaran emas', bill: 'Bil', timeLeft: 'Baki masa', pay: 'Bayar',
    decline: 'Tolak', back: 'Kembali kepada peniaga',
    notice: 'Sandbox perkhidmatan pembayaran bil: tiada wang sebenar yang berpindah.',
    notFound: 'Bil tidak dijumpai', notFoundText: 'Bil ini tidak wujud. Sila semak pautan.',
    states: { pending: 'Menunggu bayaran', paid: 'Dibayar', failed: 'Gagal', cancelled: 'Dibatalkan', expired: 'Tamat tempoh', processing: 'Bayaran sedang diproses' },
  },
  th: {
    payBill: 'ชำระบิล', gold: 'จำนวนที่แปลงเป็นทองคำ', bill: 'บิล', timeLeft: 'เวลาที่เหลือ', pay: 'ชำระ',
    decline: 'ปฏิเสธ', back: 'กลับไปยังร้านค้า',
    notice: 'แซนด์บ็อกซ์ของบริการชำระบิล: ไม่มีการโอนเงินจริง',
    notFound: 'ไม่พบบิล', notFoundText: 'ไม่มีบิลนี้ โปรดตรวจสอบลิงก์',
    states: { pending: 'รอชำระเงิน', paid: 'ชำระแล้ว', failed: 'ไม่สำเร็จ', cancelled: 'ยกเลิกแล้ว', expired: 'หมดอายุ', processing: 'กำลังดำเนินการชำระเงิน' },
  },
  vi: {
    payBill: 'Thanh toán hóa đơn', gold: 'Lượng vàng quy đổi', bill: 'Hóa đơn', timeLeft: 'Thời gian còn lại', pay: 'Thanh toán',
    decline: 'Từ chối', back: 'Quay lại cửa hàng',
    notice: 'Môi trường thử nghiệm của dịch vụ thanh toán hóa đơn: không có tiền thật được chuyển.',
    notFound: 'Không tìm thấy hóa đơn', notFoundText: 'Hóa đơn này không tồn tại. Vui lòng kiểm tra lại liên kết.',
    states: { pending: 'Chờ thanh toán', paid: 'Đã thanh toán', failed: 'Thất bại', cancelled: 'Đã hủy', expired: 'Đã hết hạn', processing: 'Đang xử lý thanh toán' },
  },
  'zh-CN': {
    payBill: '支付账单', gold: '黄金折算数量', bill: '账单', timeLeft: '剩余时间', pay: '支付',
    decline: '拒绝', back: '返回商家',
    notice: '账单支付服务的沙盒环境：不会产生真实的资金往来。',
    notFound: '未找到账单', notFoundText: '此账单不存在，请检查链接。',
    states: { pending: '待支付', paid: '已支付', failed: '支付失败', cancelled: '已取消', expired: '已过期', processing: '付款处理中' },
  },
};

/** Decimal text shown with at least two decimal places: "12.5" → "12.50". */
export function money(amount: string): string {
  const [int, frac = ''] = amount.split('.');
  return `${int}.${frac.padEnd(2, '0')}`;
}

/** `money` with the language's decimal sign ("1234,50" in Vietnamese); digits kept as they are. */
function localMoney(amount: string, lang: Language): string {
  const [int = '', frac = ''] = money(amount).split('.');
  const sign = new Intl.NumberFormat(lang).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.';
  return `${int}${sign}${frac}`;
}

function timeLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')}`;
}

export interface PayPageModel {
  record: StatusRecordWire;
  /** Styles the final (or processing) state whatever code the dialect gives it. */
  state: StatusKey;
  requireGCAmount: string;
  /** Milliseconds until expiredOn by the sandbox's clock. */
  msLeft: number;
  /** Path of the page itself; the forms post to `{pagePath}/pay` and `{pagePath}/decline`. */
  pagePath: string;
  /** Back to the merchant, for a final bill. */
  returnUrl: string;
  nonce: string;
  lang: Language;
  /** `?lang=…` when the page was asked for a language: carried into the forms' actions, so that a page shown again keeps it. */
  langQuery?: string;
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
.state-paid{color:#15803d}.state-processing{color:#b45309}.state-failed,.state-expired{color:#b91c1c}.state-cancelled{color:#6b7280}
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
el.textContent=el.dataset.expired;clearInterval(t);}};const t=setInterval(tick,1000);}
`;

function shell(lang: Language, title: string, body: string, nonce: string): string {
  return `<!doctype html>
<html lang="${lang}">
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
<p class="sandbox">${escapeHtml(TEXT[lang].notice)}</p>
</main>
<script nonce="${escapeHtml(nonce)}">${SCRIPT}</script>
</body>
</html>`;
}

export function renderPayPage(m: PayPageModel): string {
  const r = m.record;
  const t = TEXT[m.lang];
  const amount = `${localMoney(r.billAmount, m.lang)} ${r.currency}`;
  // Processing: paid, being confirmed; nothing to pay, and no expiry to count down to.
  const payable = !r.isFinal && m.state !== 'processing';
  const details = `<h1>${escapeHtml(t.payBill)} <span data-field="merchantReference">${escapeHtml(r.merchantReference)}</span></h1>
<p class="amount" data-field="amount">${escapeHtml(amount)}</p>
<dl>
<dt>${escapeHtml(t.gold)}</dt><dd data-field="requireGCAmount">${escapeHtml(m.requireGCAmount)} GC</dd>
<dt>${escapeHtml(t.bill)}</dt><dd data-field="billId">${escapeHtml(r.billId)}</dd>
${payable ? `<dt>${escapeHtml(t.timeLeft)}</dt><dd><span id="time-left" role="timer" data-ms-left="${Math.max(0, m.msLeft)}" data-expired="${escapeHtml(t.states.expired)}">${timeLeft(m.msLeft)}</span></dd>` : ''}
</dl>`;
  const path = escapeHtml(m.pagePath);
  const query = escapeHtml(m.langQuery ?? '');
  // English keeps the service's own name of the state; the other languages name it themselves.
  const state = m.lang === 'en' ? r.statusName : t.states[m.state];
  const actions = !payable
    ? `<p class="state state-${m.state}" data-field="status" role="status">${escapeHtml(state)}</p>
<div class="actions"><a class="button decline" href="${escapeHtml(m.returnUrl)}">${escapeHtml(t.back)}</a></div>`
    : `<div class="actions">
<form method="post" action="${path}/pay${query}"><button class="pay" type="submit">${escapeHtml(t.pay)} ${escapeHtml(amount)}</button></form>
<form method="post" action="${path}/decline${query}"><button class="decline" type="submit">${escapeHtml(t.decline)}</button></form>
</div>`;
  return shell(m.lang, `${t.pay} ${amount}`, details + actions, m.nonce);
}

export function renderNotFoundPage(nonce: string, lang: Language = 'en'): string {
  const t = TEXT[lang];
  return shell(lang, t.notFound, `<h1>${escapeHtml(t.notFound)}</h1><p>${escapeHtml(t.notFoundText)}</p>`, nonce);
}

export function payPageHeaders(nonce: string, lang: Language = 'en'): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-language': lang,
    vary: 'Accept-Language',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': `default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; base-uri 'none'`,
  };
}
