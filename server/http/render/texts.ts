// What only the server's markup says (the element never shows these): the expiry line of a page
// without JavaScript and of a printed page, the link that checks the status without JavaScript,
// and that status page's own lines. The outcomes' headings and leads are the return page's.
import type { Language } from '../../../contract/languages.js';

export interface RenderTexts {
  /** Before the expiry: "Pay by: 26 Nov 2026, 14:32 UTC". */
  payBy: string;
  /** The link to the status page. */
  checkStatus: string;
  /** On the status page while pending: it looks again by itself. */
  refreshes: string;
  /** On the status page while pending: the pay link. */
  pay: string;
  /** On the status page of a failed, cancelled or expired bill. */
  noMoney: string;
  notFound: string;
}

export const RENDER_TEXTS: Record<Language, RenderTexts> = {
  en: {
    payBy: 'Pay by', checkStatus: 'Check the payment status', refreshes: 'This page checks again every few seconds.',
    pay: 'Pay now', noMoney: 'No money was taken.', notFound: 'This payment link is not valid.',
  },
  id: {
    payBy: 'Bayar sebelum', checkStatus: 'Periksa status pembayaran', refreshes: 'Halaman ini memeriksa lagi setiap beberapa detik.',
    pay: 'Bayar sekarang', noMoney: 'Tidak ada uang yang diambil.', notFound: 'Tautan pembayaran ini tidak valid.',
  },
  ms: {
    payBy: 'Bayar sebelum', checkStatus: 'Semak status pembayaran', refreshes: 'Halaman ini menyemak semula setiap beberapa saat.',
    pay: 'Bayar sekarang', noMoney: 'Tiada wang diambil.', notFound: 'Pautan pembayaran ini tidak sah.',
  },
  th: {
    payBy: 'ชำระภายใน', checkStatus: 'ตรวจสอบสถานะการชำระเงิน', refreshes: 'หน้านี้จะตรวจสอบอีกครั้งทุกไม่กี่วินาที',
    pay: 'ชำระเงินตอนนี้', noMoney: 'ไม่มีการตัดเงิน', notFound: 'ลิงก์ชำระเงินนี้ไม่ถูกต้อง',
  },
  vi: {
    payBy: 'Thanh toán trước', checkStatus: 'Kiểm tra trạng thái thanh toán', refreshes: 'Trang này tự kiểm tra lại sau vài giây.',
    pay: 'Thanh toán ngay', noMoney: 'Không có khoản tiền nào bị trừ.', notFound: 'Liên kết thanh toán này không hợp lệ.',
  },
  'zh-CN': {
    payBy: '付款截止', checkStatus: '查看付款状态', refreshes: '本页面每隔几秒自动检查一次。',
    pay: '立即付款', noMoney: '未扣除任何款项。', notFound: '此付款链接无效。',
  },
};
