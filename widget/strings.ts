/** Every text the element shows or announces. */
export const en = {
  loading: 'Loading your bill…',
  unreachable: 'Cannot reach the payment service. Retrying…',
  reconnecting: 'Connection lost. Retrying…',
  amount: 'Amount to pay',
  gold: 'Gold required',
  reference: 'Reference',
  timeLeft: 'Time left',
  qrLabel: 'Payment QR code',
  scan: 'Scan it with your payment app.',
  pay: 'Pay now',
  copy: 'Copy link',
  copied: 'Link copied',
  showQr: 'Show QR code',
  showButton: 'Pay on this device',
  waiting: 'Waiting for payment…',
  checking: 'Checking your payment…',
  cancel: 'Cancel',
  paid: 'Payment received',
  failed: 'Payment failed',
  cancelled: 'Payment cancelled',
  expired: 'Bill expired',
  startAgain: 'Start again',
  unsafeUrl: 'This payment link is not safe.',
  notFound: 'Bill not found.',
  createFailed: 'Could not create the bill.',
};

/** The strings object; the `strings` property takes a Partial of it. */
export type Strings = typeof en;

const id: Strings = {
  loading: 'Memuat tagihan…',
  unreachable: 'Layanan tidak terjangkau. Mencoba lagi…',
  reconnecting: 'Koneksi terputus. Mencoba lagi…',
  amount: 'Jumlah bayar',
  gold: 'Emas diperlukan',
  reference: 'Referensi',
  timeLeft: 'Sisa waktu',
  qrLabel: 'Kode QR pembayaran',
  scan: 'Pindai dengan aplikasi pembayaran Anda.',
  pay: 'Bayar sekarang',
  copy: 'Salin tautan',
  copied: 'Tautan disalin',
  showQr: 'Tampilkan kode QR',
  showButton: 'Bayar di perangkat ini',
  waiting: 'Menunggu pembayaran…',
  checking: 'Memeriksa pembayaran…',
  cancel: 'Batalkan',
  paid: 'Pembayaran diterima',
  failed: 'Pembayaran gagal',
  cancelled: 'Pembayaran dibatalkan',
  expired: 'Tagihan kedaluwarsa',
  startAgain: 'Mulai lagi',
  unsafeUrl: 'Tautan pembayaran ini tidak aman.',
  notFound: 'Tagihan tidak ditemukan.',
  createFailed: 'Tagihan tidak dapat dibuat.',
};

/** The shipped strings for a BCP 47 locale (by its language), English when not shipped. */
export function stringsFor(locale: string | undefined): Strings {
  return /^id\b/i.test(locale ?? '') ? id : en;
}
