// The page the return route shows a device that did not start the bill (a phone that scanned the
// desktop's QR code): what the BFF knows of the payment, in the customer's language, and that the
// checkout goes on where it started. No cart, no script; one inline style allowed by its hash.
import type { Outcome } from '../../contract/bill-view.js';
import { formatAmount } from '../../contract/decimal.js';
import { escapeHtml } from '../../contract/escape-html.js';
import type { Language } from '../../contract/languages.js';


export interface ReturnPageTexts {
  heading: Record<Outcome, string>;
  lead: Record<Outcome, string>;
  back: string;
  amount: string;
  reference: string;
  /** Shown on the embedded sandbox: nothing it shows is a real payment. */
  test: string;
}

export const RETURN_PAGE_TEXTS: Record<Language, ReturnPageTexts> = {
  en: {
    heading: { paid: 'Payment received', failed: 'Payment failed', cancelled: 'Payment cancelled', expired: 'Bill expired', pending: 'Checking your payment' },
    lead: {
      paid: 'Thank you: your payment has been received.',
      failed: 'The payment did not go through, so this bill is not paid.',
      cancelled: 'This bill was cancelled before it was paid.',
      expired: 'This bill expired before it was paid.',
      pending: 'We are checking the payment with the payment service. This page updates itself.',
    },
    back: 'You can close this page and go back to the device where you started the payment.',
    amount: 'Amount',
    reference: 'Reference',
    test: 'Test mode: no real money was moved.',
  },
  id: {
    heading: { paid: 'Pembayaran diterima', failed: 'Pembayaran gagal', cancelled: 'Pembayaran dibatalkan', expired: 'Tagihan kedaluwarsa', pending: 'Memeriksa pembayaran Anda' },
    lead: {
      paid: 'Terima kasih, pembayaran Anda telah kami terima.',
      failed: 'Pembayaran tidak berhasil, jadi tagihan ini belum dibayar.',
      cancelled: 'Tagihan ini dibatalkan sebelum dibayar.',
      expired: 'Tagihan ini kedaluwarsa sebelum dibayar.',
      pending: 'Kami sedang memeriksa pembayaran ke layanan pembayaran. Halaman ini diperbarui dengan sendirinya.',
    },
    back: 'Anda dapat menutup halaman ini dan kembali ke perangkat tempat Anda memulai pembayaran.',
    amount: 'Jumlah',
    reference: 'Referensi',
    test: 'Mode uji: tidak ada uang sungguhan yang berpindah.',
  },
  ms: {
    heading: { paid: 'Pembayaran diterima', failed: 'Pembayaran gagal', cancelled: 'Pembayaran dibatalkan', expired: 'Bil tamat tempoh', pending: 'Menyemak pembayaran anda' },
    lead: {
      paid: 'Terima kasih, pembayaran anda telah diterima.',
      failed: 'Pembayaran tidak berjaya, jadi bil ini belum dibayar.',
      cancelled: 'Bil ini telah dibatalkan sebelum dibayar.',
      expired: 'Bil ini tamat tempoh sebelum dibayar.',
      pending: 'Kami sedang menyemak pembayaran dengan perkhidmatan pembayaran. Halaman ini dikemas kini dengan sendirinya.',
    },
    back: 'Anda boleh menutup halaman ini dan kembali ke peranti tempat anda memulakan pembayaran.',
    amount: 'Jumlah',
    reference: 'Rujukan',
    test: 'Mod ujian: tiada wang sebenar dipindahkan.',
  },
  th: {
    heading: { paid: 'ได้รับการชำระเงินแล้ว', failed: 'การชำระเงินไม่สำเร็จ', cancelled: 'ยกเลิกการชำระเงินแล้ว', expired: 'บิลหมดอายุแล้ว', pending: 'กำลังตรวจสอบการชำระเงินของคุณ' },
    lead: {
      paid: 'ขอบคุณ เราได้รับการชำระเงินของคุณแล้ว',
      failed: 'การชำระเงินไม่สำเร็จ บิลนี้จึงยังไม่ได้ชำระ',
      cancelled: 'บิลนี้ถูกยกเลิกก่อนที่จะมีการชำระเงิน',
      expired: 'บิลนี้หมดอายุก่อนที่จะมีการชำระเงิน',
      pending: 'เรากำลังตรวจสอบการชำระเงินกับผู้ให้บริการชำระเงิน หน้านี้จะอัปเดตเอง',
    },
    back: 'คุณปิดหน้านี้และกลับไปยังอุปกรณ์ที่คุณเริ่มชำระเงินได้',
    amount: 'จำนวนเงิน',
    reference: 'หมายเลขอ้างอิง',
    test: 'โหมดทดสอบ: ไม่มีการโอนเงินจริง',
  },
  vi: {
    heading: { paid: 'Đã nhận thanh toán', failed: 'Thanh toán không thành công', cancelled: 'Đã hủy thanh toán', expired: 'Hóa đơn đã hết hạn', pending: 'Đang kiểm tra thanh toán' },
    lead: {
      paid: 'Cảm ơn bạn, chúng tôi đã nhận được khoản thanh toán.',
      failed: 'Giao dịch không thành công nên hóa đơn này chưa được thanh toán.',
      cancelled: 'Hóa đơn này đã bị hủy trước khi được thanh toán.',
      expired: 'Hóa đơn này đã hết hạn trước khi được thanh toán.',
      pending: 'Chúng tôi đang kiểm tra khoản thanh toán với dịch vụ thanh toán. Trang này sẽ tự cập nhật.',
    },
    back: 'Bạn có thể đóng trang này và quay lại thiết bị mà bạn đã bắt đầu thanh toán.',
    amount: 'Số tiền',
    reference: 'Mã tham chiếu',
    test: 'Chế độ thử nghiệm: không có tiền thật được chuyển.',
  },
  'zh-CN': {
    heading: { paid: '已收到付款', failed: '付款失败', cancelled: '付款已取消', expired: '账单已过期', pending: '正在确认您的付款' },
    lead: {
      paid: '谢谢，我们已收到您的付款。',
      failed: '付款未成功，此账单尚未支付。',
      cancelled: '此账单在支付前已被取消。',
      expired: '此账单在支付前已过期。',
      pending: '我们正在向支付服务确认这笔付款。本页面会自动刷新。',
    },
    back: '您可以关闭此页面，回到您开始付款的设备。',
    amount: '金额',
    reference: '参考号',
    test: '测试模式：没有真实资金转移。',
  },
};

const STYLE = ':root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}' +
  'body{margin:0;padding:1.25rem;background:Canvas;color:CanvasText}' +
  'main{max-width:30rem;margin:2rem auto}h1{font-size:1.5rem;line-height:1.25;margin:0 0 .75rem}' +
  'dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:1.25rem 0}dt{opacity:.75}' +
  'dd{margin:0;font-weight:600;overflow-wrap:anywhere}.test{border:1px solid;border-radius:.5rem;padding:.5rem .75rem}';

let styleHash: Promise<string> | undefined;
async function hashOf(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let binary = '';
  for (const b of digest) binary += String.fromCharCode(b);
  return `'sha256-${btoa(binary)}'`;
}

/** How often a page that knows no final outcome asks again, s (the return's requery is rate-limited per bill). */
export const RETURN_PAGE_REFRESH_S = 5;

export interface ReturnPageInput {
  outcome: Outcome;
  amount: string;
  currency: string | null;
  merchantReference: string;
  language: Language;
  /** The embedded sandbox: the page says that nothing was a real payment. */
  testMode: boolean;
}

export interface ReturnPage {
  html: string;
  /** Its Content-Security-Policy: nothing but its own inline style. */
  csp: string;
}

export async function returnPage(input: ReturnPageInput): Promise<ReturnPage> {
  const t = RETURN_PAGE_TEXTS[input.language];
  const heading = escapeHtml(t.heading[input.outcome]);
  const refresh = input.outcome === 'pending' ? `<meta http-equiv="refresh" content="${RETURN_PAGE_REFRESH_S}">` : '';
  const html = '<!doctype html>' +
    `<html lang="${input.language}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="color-scheme" content="light dark"><meta name="referrer" content="no-referrer">' +
    `${refresh}<title>${heading}</title><style>${STYLE}</style></head>` +
    `<body><main data-outcome="${input.outcome}"><h1>${heading}</h1><p>${escapeHtml(t.lead[input.outcome])}</p>` +
    `<dl><dt>${escapeHtml(t.amount)}</dt><dd>${escapeHtml(formatAmount(input.amount, input.language, input.currency ?? undefined))}</dd>` +
    `<dt>${escapeHtml(t.reference)}</dt><dd>${escapeHtml(input.merchantReference)}</dd></dl>` +
    `<p>${escapeHtml(t.back)}</p>` +
    (input.testMode ? `<p class="test">${escapeHtml(t.test)}</p>` : '') +
    '</main></body></html>';
  const style = await (styleHash ??= hashOf(STYLE));
  return {
    html,
    csp: `default-src 'none'; style-src ${style}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  };
}
