// Every text of the demo pages (shop, variants, script tag, React) in the languages the demo
// speaks. Here, beside the catalogue, because the demo's server renders the script-tag page, which
// loads no script of its own; the pages in demo/ import it too. In a text, `code` is shown as code.

import type { Language } from '../../contract/languages.js';

export const BRAND = 'Northwind Goods';

type Outcome = 'pending' | 'paid' | 'failed' | 'cancelled' | 'expired';
/** `{brand}` and `{order}` are filled in by the shop. */
type ResultText = { heading: string; text: string };

const en = {
  navLabel: 'Demo pages',
  navShop: 'Shop',
  navVariants: 'Variants',
  navScriptTag: 'Script tag',
  navReact: 'React 19',
  navAdmin: 'Admin',
  language: 'Language',

  // Shop
  shopHeading: 'Checkout',
  chooseProduct: 'Choose a product',
  cartTitle: 'Your cart',
  shipping: 'Shipping',
  free: 'Free',
  total: 'Total',
  order: (id: string) => `Order ${id}`,
  gettingOrder: 'Getting your order…',
  tryInAMoment: 'Try again in a moment.',
  tryAgain: 'Try again',
  pay: (amount: string) => `Pay ${amount}`,
  paymentTitle: 'Payment',
  payHint: 'Choose a product, then pay by scanning the code or with the pay button.',
  newOrder: 'Start a new order',
  backToCheckout: 'Back to your checkout',
  checkingReturn: 'Back from the payment page: checking the payment…',
  orderNote: {
    pending: (order: string) => `Order ${order}: waiting for payment.`,
    paid: (order: string) => `Order ${order}: paid. Thank you!`,
    failed: (order: string) => `Order ${order}: the payment failed.`,
    cancelled: (order: string) => `Order ${order}: cancelled.`,
    expired: (order: string) => `Order ${order}: the bill expired before it was paid.`,
  } satisfies Record<Outcome, (order: string) => string>,
  result: {
    paid: {
      heading: 'Payment received',
      text: '{brand} has your payment for {order}. You can close this page and go back to where you started.',
    },
    pending: {
      heading: 'Waiting for confirmation',
      text: '{brand} is waiting for the payment service to confirm the payment for {order}. The page where you started will show the result as soon as it is confirmed; you can close this one.',
    },
    failed: {
      heading: 'Payment failed',
      text: 'The payment for {order} did not go through, so {brand} has not been paid. Go back to where you started to try again, or start a new order here.',
    },
    cancelled: {
      heading: 'Payment cancelled',
      text: 'The bill for {order} was cancelled before it was paid, so {brand} has not been paid. Go back to where you started, or start a new order here.',
    },
    expired: {
      heading: 'Bill expired',
      text: 'The bill for {order} expired before it was paid, so {brand} has not been paid. Go back to where you started, or start a new order here.',
    },
    unknown: {
      heading: 'Back from the payment page',
      text: 'This link does not say how the payment for {order} went. The page where you started the payment shows its result.',
    },
  } satisfies Record<Outcome | 'unknown', ResultText>,
  yourOrder: 'your order',
  /** `{ref}` is the order's id. */
  namedOrder: 'order {ref}',
  resultBill: (id: string) => `Bill ${id}`,
  orderUnreachable: "The shop's server could not be reached to start an order.",
  orderRefused: (status: number) => `The shop's server could not start an order (HTTP ${status}).`,
  orderFailed: "The shop's server could not start an order.",
  products: {
    mug: { name: 'Enamel camp mug', blurb: 'Steel, white enamel, 350 ml.' },
    tee: { name: 'Organic cotton tee', blurb: 'Heavyweight, unisex, stone grey.' },
    poster: { name: 'Risograph poster', blurb: 'A3, two colours, signed.' },
    beans: { name: 'Single-origin beans', blurb: '250 g, washed, light roast.' },
  } as Record<string, { name: string; blurb: string }>,
  outcomes: {
    pending: 'pending', paid: 'paid', failed: 'failed', cancelled: 'cancelled', expired: 'expired',
  } satisfies Record<Outcome, string>,

  // Variants
  variantsHeading: 'Variants',
  variantsLede: "The same element in button mode and in a merchant's own colours, each paying a fresh order.",
  buttonModeTitle: 'Button mode',
  buttonModeNote: 'What a phone or an in-app webview shows: a button that opens the payment page.',
  themedTitle: 'Themed',
  themedNote: 'Only `--bill-checkout-*` custom properties, set on a wrapper.',
  reloadToTryAgain: 'Reload the page to try again.',

  // Script tag
  scriptTagHeading: 'One script tag',
  scriptTagLede: 'This page loads no code of its own: only `<script type="module" src="/bill-checkout.js">`, the way a page on any stack would use it from a CDN. '
    + "The page's server put a fresh order, its ticket and the language into the HTML (`order-id`, `order-ticket` and `locale`), as a merchant's server would: every visit pays an order of its own.",
  go: 'Go',

  // React
  reactLede: "React 19 sets the element's properties and listens to its custom events natively.",
  reactOrder: (id: string) => `Order ${id} (passed as the orderId property, with its orderTicket)`,
  reactGettingOrder: "Getting an order from the shop's server…",
  reactEvents: 'Events React received',
  reactFinal: (outcome: string) => `React state: the bill is ${outcome}.`,
  newOrderShort: 'New order',
};

export type DemoStrings = typeof en;
/** The texts a page names in its HTML (`data-text="key"`): the plain ones. */
export type TextKey = { [K in keyof DemoStrings]: DemoStrings[K] extends string ? K : never }[keyof DemoStrings];

const id: DemoStrings = {
  navLabel: 'Halaman demo',
  navShop: 'Toko',
  navVariants: 'Varian',
  navScriptTag: 'Tag skrip',
  navReact: 'React 19',
  navAdmin: 'Admin',
  language: 'Bahasa',

  shopHeading: 'Checkout',
  chooseProduct: 'Pilih produk',
  cartTitle: 'Keranjang Anda',
  shipping: 'Ongkos kirim',
  free: 'Gratis',
  total: 'Total',
  order: (x) => `Pesanan ${x}`,
  gettingOrder: 'Menyiapkan pesanan Anda…',
  tryInAMoment: 'Coba lagi beberapa saat lagi.',
  tryAgain: 'Coba lagi',
  pay: (amount) => `Bayar ${amount}`,
  paymentTitle: 'Pembayaran',
  payHint: 'Pilih produk, lalu bayar dengan memindai kode atau menekan tombol bayar.',
  newOrder: 'Buat pesanan baru',
  backToCheckout: 'Kembali ke pembayaran Anda',
  checkingReturn: 'Kembali dari halaman pembayaran: memeriksa pembayaran…',
  orderNote: {
    pending: (o) => `Pesanan ${o}: menunggu pembayaran.`,
    paid: (o) => `Pesanan ${o}: sudah dibayar. Terima kasih!`,
    failed: (o) => `Pesanan ${o}: pembayaran gagal.`,
    cancelled: (o) => `Pesanan ${o}: dibatalkan.`,
    expired: (o) => `Pesanan ${o}: tagihan kedaluwarsa sebelum dibayar.`,
  },
  result: {
    paid: {
      heading: 'Pembayaran diterima',
      text: '{brand} telah menerima pembayaran untuk {order}. Anda bisa menutup halaman ini dan kembali ke halaman tempat Anda memulai.',
    },
    pending: {
      heading: 'Menunggu konfirmasi',
      text: '{brand} sedang menunggu layanan pembayaran mengonfirmasi pembayaran untuk {order}. Halaman tempat Anda memulai akan menampilkan hasilnya begitu pembayaran dikonfirmasi; halaman ini boleh ditutup.',
    },
    failed: {
      heading: 'Pembayaran gagal',
      text: 'Pembayaran untuk {order} tidak berhasil, jadi {brand} belum menerima pembayaran. Kembali ke halaman tempat Anda memulai untuk mencoba lagi, atau buat pesanan baru di sini.',
    },
    cancelled: {
      heading: 'Pembayaran dibatalkan',
      text: 'Tagihan untuk {order} dibatalkan sebelum dibayar, jadi {brand} belum menerima pembayaran. Kembali ke halaman tempat Anda memulai, atau buat pesanan baru di sini.',
    },
    expired: {
      heading: 'Tagihan kedaluwarsa',
      text: 'Tagihan untuk {order} kedaluwarsa sebelum dibayar, jadi {brand} belum menerima pembayaran. Kembali ke halaman tempat Anda memulai, atau buat pesanan baru di sini.',
    },
    unknown: {
      heading: 'Kembali dari halaman pembayaran',
      text: 'Tautan ini tidak menunjukkan hasil pembayaran untuk {order}. Hasilnya ada di halaman tempat Anda memulai pembayaran.',
    },
  },
  yourOrder: 'pesanan Anda',
  namedOrder: 'pesanan {ref}',
  resultBill: (x) => `Tagihan ${x}`,
  orderUnreachable: 'Server toko tidak dapat dihubungi untuk membuat pesanan.',
  orderRefused: (status) => `Server toko tidak dapat membuat pesanan (HTTP ${status}).`,
  orderFailed: 'Server toko tidak dapat membuat pesanan.',
  products: {
    mug: { name: 'Mug kemah enamel', blurb: 'Baja, enamel putih, 350 ml.' },
    tee: { name: 'Kaus katun organik', blurb: 'Bahan tebal, uniseks, abu-abu batu.' },
    poster: { name: 'Poster risograf', blurb: 'A3, dua warna, bertanda tangan.' },
    beans: { name: 'Biji kopi single origin', blurb: '250 g, proses washed, sangrai ringan.' },
  },
  outcomes: { pending: 'menunggu', paid: 'dibayar', failed: 'gagal', cancelled: 'dibatalkan', expired: 'kedaluwarsa' },

  variantsHeading: 'Varian',
  variantsLede: 'Elemen yang sama dalam mode tombol dan dengan warna milik pedagang, masing-masing membayar pesanan baru.',
  buttonModeTitle: 'Mode tombol',
  buttonModeNote: 'Tampilan di ponsel atau webview dalam aplikasi: tombol yang membuka halaman pembayaran.',
  themedTitle: 'Bertema',
  themedNote: 'Hanya properti kustom `--bill-checkout-*` yang dipasang pada pembungkus.',
  reloadToTryAgain: 'Muat ulang halaman untuk mencoba lagi.',

  scriptTagHeading: 'Satu tag skrip',
  scriptTagLede: 'Halaman ini tidak memuat kode sendiri: hanya `<script type="module" src="/bill-checkout.js">`, seperti halaman di platform apa pun memakainya dari CDN. '
    + 'Server halaman ini menaruh pesanan baru, tiketnya, dan bahasanya ke dalam HTML (`order-id`, `order-ticket`, dan `locale`), seperti yang dilakukan server pedagang: setiap kunjungan membayar pesanannya sendiri.',
  go: 'Ganti',

  reactLede: 'React 19 mengatur properti elemen dan mendengarkan event kustomnya secara bawaan.',
  reactOrder: (x) => `Pesanan ${x} (diteruskan sebagai properti orderId, beserta orderTicket-nya)`,
  reactGettingOrder: 'Meminta pesanan dari server toko…',
  reactEvents: 'Event yang diterima React',
  reactFinal: (outcome) => `State React: tagihan ${outcome}.`,
  newOrderShort: 'Pesanan baru',
};

const ms: DemoStrings = {
  navLabel: 'Halaman demo',
  navShop: 'Kedai',
  navVariants: 'Varian',
  navScriptTag: 'Tag skrip',
  navReact: 'React 19',
  navAdmin: 'Pentadbir',
  language: 'Bahasa',

  shopHeading: 'Checkout',
  chooseProduct: 'Pilih produk',
  cartTitle: 'Troli anda',
  shipping: 'Penghantaran',
  free: 'Percuma',
  total: 'Jumlah',
  order: (x) => `Pesanan ${x}`,
  gettingOrder: 'Menyediakan pesanan anda…',
  tryInAMoment: 'Sila cuba lagi sebentar lagi.',
  tryAgain: 'Cuba lagi',
  pay: (amount) => `Bayar ${amount}`,
  paymentTitle: 'Bayaran',
  payHint: 'Pilih produk, kemudian bayar dengan mengimbas kod atau menekan butang bayar.',
  newOrder: 'Buat pesanan baharu',
  backToCheckout: 'Kembali ke pembayaran anda',
  checkingReturn: 'Kembali dari halaman pembayaran: menyemak bayaran…',
  orderNote: {
    pending: (o) => `Pesanan ${o}: menunggu bayaran.`,
    paid: (o) => `Pesanan ${o}: telah dibayar. Terima kasih!`,
    failed: (o) => `Pesanan ${o}: bayaran gagal.`,
    cancelled: (o) => `Pesanan ${o}: dibatalkan.`,
    expired: (o) => `Pesanan ${o}: bil tamat tempoh sebelum dibayar.`,
  },
  result: {
    paid: {
      heading: 'Bayaran diterima',
      text: '{brand} telah menerima bayaran untuk {order}. Anda boleh menutup halaman ini dan kembali ke halaman tempat anda bermula.',
    },
    pending: {
      heading: 'Menunggu pengesahan',
      text: '{brand} sedang menunggu perkhidmatan pembayaran mengesahkan bayaran untuk {order}. Halaman tempat anda bermula akan memaparkan keputusannya sebaik sahaja bayaran disahkan; anda boleh menutup halaman ini.',
    },
    failed: {
      heading: 'Bayaran gagal',
      text: 'Bayaran untuk {order} tidak berjaya, jadi {brand} belum menerima bayaran. Kembali ke halaman tempat anda bermula untuk mencuba lagi, atau buat pesanan baharu di sini.',
    },
    cancelled: {
      heading: 'Bayaran dibatalkan',
      text: 'Bil untuk {order} telah dibatalkan sebelum dibayar, jadi {brand} belum menerima bayaran. Kembali ke halaman tempat anda bermula, atau buat pesanan baharu di sini.',
    },
    expired: {
      heading: 'Bil tamat tempoh',
      text: 'Bil untuk {order} tamat tempoh sebelum dibayar, jadi {brand} belum menerima bayaran. Kembali ke halaman tempat anda bermula, atau buat pesanan baharu di sini.',
    },
    unknown: {
      heading: 'Kembali dari halaman pembayaran',
      text: 'Pautan ini tidak menyatakan keputusan bayaran untuk {order}. Keputusannya dipaparkan di halaman tempat anda memulakan pembayaran.',
    },
  },
  yourOrder: 'pesanan anda',
  namedOrder: 'pesanan {ref}',
  resultBill: (x) => `Bil ${x}`,
  orderUnreachable: 'Pelayan kedai tidak dapat dihubungi untuk membuat pesanan.',
  orderRefused: (status) => `Pelayan kedai tidak dapat membuat pesanan (HTTP ${status}).`,
  orderFailed: 'Pelayan kedai tidak dapat membuat pesanan.',
  products: {
    mug: { name: 'Mug perkhemahan enamel', blurb: 'Keluli, enamel putih, 350 ml.' },
    tee: { name: 'Baju-T kapas organik', blurb: 'Fabrik tebal, uniseks, kelabu batu.' },
    poster: { name: 'Poster risograf', blurb: 'A3, dua warna, bertandatangan.' },
    beans: { name: 'Biji kopi asal tunggal', blurb: '250 g, proses basuh, panggang ringan.' },
  },
  outcomes: { pending: 'menunggu', paid: 'dibayar', failed: 'gagal', cancelled: 'dibatalkan', expired: 'tamat tempoh' },

  variantsHeading: 'Varian',
  variantsLede: 'Elemen yang sama dalam mod butang dan dengan warna peniaga sendiri, masing-masing membayar pesanan baharu.',
  buttonModeTitle: 'Mod butang',
  buttonModeNote: 'Paparan pada telefon atau webview dalam aplikasi: butang yang membuka halaman pembayaran.',
  themedTitle: 'Bertema',
  themedNote: 'Hanya sifat tersuai `--bill-checkout-*` yang ditetapkan pada pembalut.',
  reloadToTryAgain: 'Muat semula halaman untuk mencuba lagi.',

  scriptTagHeading: 'Satu tag skrip',
  scriptTagLede: 'Halaman ini tidak memuatkan kod sendiri: hanya `<script type="module" src="/bill-checkout.js">`, sama seperti halaman pada mana-mana platform menggunakannya daripada CDN. '
    + 'Pelayan halaman ini meletakkan pesanan baharu, tiketnya dan bahasanya ke dalam HTML (`order-id`, `order-ticket` dan `locale`), seperti yang dilakukan oleh pelayan peniaga: setiap lawatan membayar pesanannya sendiri.',
  go: 'Tukar',

  reactLede: 'React 19 menetapkan sifat elemen dan mendengar acara tersuainya secara asli.',
  reactOrder: (x) => `Pesanan ${x} (dihantar sebagai sifat orderId, bersama orderTicket)`,
  reactGettingOrder: 'Meminta pesanan daripada pelayan kedai…',
  reactEvents: 'Acara yang diterima React',
  reactFinal: (outcome) => `State React: bil ${outcome}.`,
  newOrderShort: 'Pesanan baharu',
};

const th: DemoStrings = {
  navLabel: 'หน้าตัวอย่าง',
  navShop: 'ร้านค้า',
  navVariants: 'รูปแบบ',
  navScriptTag: 'แท็กสคริปต์',
  navReact: 'React 19',
  navAdmin: 'ผู้ดูแล',
  language: 'ภาษา',

  shopHeading: 'ชำระเงิน',
  chooseProduct: 'เลือกสินค้า',
  cartTitle: 'ตะกร้าสินค้าของคุณ',
  shipping: 'ค่าจัดส่ง',
  free: 'ฟรี',
  total: 'ยอดรวม',
  order: (x) => `คำสั่งซื้อ ${x}`,
  gettingOrder: 'กำลังสร้างคำสั่งซื้อ…',
  tryInAMoment: 'โปรดลองอีกครั้งในอีกสักครู่',
  tryAgain: 'ลองอีกครั้ง',
  pay: (amount) => `ชำระ ${amount}`,
  paymentTitle: 'การชำระเงิน',
  payHint: 'เลือกสินค้า แล้วชำระเงินด้วยการสแกนโค้ดหรือกดปุ่มชำระเงิน',
  newOrder: 'เริ่มคำสั่งซื้อใหม่',
  backToCheckout: 'กลับไปที่หน้าชำระเงิน',
  checkingReturn: 'กลับมาจากหน้าชำระเงินแล้ว กำลังตรวจสอบการชำระเงิน…',
  orderNote: {
    pending: (o) => `คำสั่งซื้อ ${o}: รอการชำระเงิน`,
    paid: (o) => `คำสั่งซื้อ ${o}: ชำระเงินแล้ว ขอบคุณที่สั่งซื้อ`,
    failed: (o) => `คำสั่งซื้อ ${o}: การชำระเงินไม่สำเร็จ`,
    cancelled: (o) => `คำสั่งซื้อ ${o}: ยกเลิกแล้ว`,
    expired: (o) => `คำสั่งซื้อ ${o}: บิลหมดอายุก่อนชำระเงิน`,
  },
  result: {
    paid: {
      heading: 'ได้รับการชำระเงินแล้ว',
      text: '{brand} ได้รับการชำระเงินสำหรับ{order}แล้ว คุณปิดหน้านี้และกลับไปยังหน้าที่คุณเริ่มต้นได้เลย',
    },
    pending: {
      heading: 'รอการยืนยัน',
      text: '{brand} กำลังรอให้ผู้ให้บริการชำระเงินยืนยันการชำระเงินสำหรับ{order} หน้าที่คุณเริ่มต้นจะแสดงผลทันทีที่ได้รับการยืนยัน คุณปิดหน้านี้ได้',
    },
    failed: {
      heading: 'การชำระเงินไม่สำเร็จ',
      text: 'การชำระเงินสำหรับ{order}ไม่สำเร็จ {brand} จึงยังไม่ได้รับเงิน กลับไปยังหน้าที่คุณเริ่มต้นเพื่อลองอีกครั้ง หรือเริ่มคำสั่งซื้อใหม่ที่นี่',
    },
    cancelled: {
      heading: 'ยกเลิกการชำระเงินแล้ว',
      text: 'บิลของ{order}ถูกยกเลิกก่อนชำระเงิน {brand} จึงยังไม่ได้รับเงิน กลับไปยังหน้าที่คุณเริ่มต้น หรือเริ่มคำสั่งซื้อใหม่ที่นี่',
    },
    expired: {
      heading: 'บิลหมดอายุ',
      text: 'บิลของ{order}หมดอายุก่อนชำระเงิน {brand} จึงยังไม่ได้รับเงิน กลับไปยังหน้าที่คุณเริ่มต้น หรือเริ่มคำสั่งซื้อใหม่ที่นี่',
    },
    unknown: {
      heading: 'กลับมาจากหน้าชำระเงิน',
      text: 'ลิงก์นี้ไม่ได้บอกว่าการชำระเงินสำหรับ{order}เป็นอย่างไร หน้าที่คุณเริ่มชำระเงินจะแสดงผลลัพธ์',
    },
  },
  yourOrder: 'คำสั่งซื้อของคุณ',
  // Spaces around the Latin id, none where Thai meets Thai.
  namedOrder: 'คำสั่งซื้อ {ref} ',
  resultBill: (x) => `บิล ${x}`,
  orderUnreachable: 'ไม่สามารถติดต่อเซิร์ฟเวอร์ของร้านเพื่อสร้างคำสั่งซื้อได้',
  orderRefused: (status) => `เซิร์ฟเวอร์ของร้านสร้างคำสั่งซื้อไม่สำเร็จ (HTTP ${status})`,
  orderFailed: 'เซิร์ฟเวอร์ของร้านสร้างคำสั่งซื้อไม่สำเร็จ',
  products: {
    mug: { name: 'แก้วมัคเคลือบสำหรับแคมป์', blurb: 'เหล็กเคลือบอีนาเมลสีขาว 350 มล.' },
    tee: { name: 'เสื้อยืดผ้าฝ้ายออร์แกนิก', blurb: 'ผ้าหนา ใส่ได้ทุกเพศ สีเทาหิน' },
    poster: { name: 'โปสเตอร์ริโซกราฟ', blurb: 'ขนาด A3 พิมพ์สองสี มีลายเซ็น' },
    beans: { name: 'เมล็ดกาแฟซิงเกิลออริจิน', blurb: '250 ก. โพรเซสแบบล้าง คั่วอ่อน' },
  },
  outcomes: { pending: 'รอชำระ', paid: 'ชำระแล้ว', failed: 'ชำระไม่สำเร็จ', cancelled: 'ยกเลิกแล้ว', expired: 'หมดอายุ' },

  variantsHeading: 'รูปแบบการแสดงผล',
  variantsLede: 'องค์ประกอบเดียวกันในโหมดปุ่มและในสีของร้านค้าเอง แต่ละอันชำระคำสั่งซื้อใหม่ของตัวเอง',
  buttonModeTitle: 'โหมดปุ่ม',
  buttonModeNote: 'สิ่งที่แสดงบนโทรศัพท์หรือเว็บวิวในแอป: ปุ่มที่เปิดหน้าชำระเงิน',
  themedTitle: 'ปรับธีม',
  themedNote: 'ใช้เพียงคุณสมบัติกำหนดเอง `--bill-checkout-*` ที่ตั้งไว้บนองค์ประกอบที่ครอบอยู่',
  reloadToTryAgain: 'โหลดหน้านี้ใหม่เพื่อลองอีกครั้ง',

  scriptTagHeading: 'แท็กสคริปต์เดียว',
  scriptTagLede: 'หน้านี้ไม่โหลดโค้ดของตัวเองเลย มีเพียง `<script type="module" src="/bill-checkout.js">` แบบเดียวกับที่หน้าเว็บบนระบบใดก็ได้โหลดจาก CDN '
    + 'เซิร์ฟเวอร์ของหน้าใส่คำสั่งซื้อใหม่ ตั๋วของคำสั่งซื้อ และภาษาไว้ใน HTML (`order-id`, `order-ticket` และ `locale`) เหมือนที่เซิร์ฟเวอร์ของร้านค้าทำ ทุกครั้งที่เข้าชมจึงชำระคำสั่งซื้อของตัวเอง',
  go: 'เปลี่ยน',

  reactLede: 'React 19 กำหนดพร็อพเพอร์ตีขององค์ประกอบและรับอีเวนต์แบบกำหนดเองของมันได้โดยตรง',
  reactOrder: (x) => `คำสั่งซื้อ ${x} (ส่งผ่านพร็อพเพอร์ตี orderId พร้อม orderTicket)`,
  reactGettingOrder: 'กำลังขอคำสั่งซื้อจากเซิร์ฟเวอร์ของร้าน…',
  reactEvents: 'อีเวนต์ที่ React ได้รับ',
  reactFinal: (outcome) => `สถานะใน React: บิล${outcome}`,
  newOrderShort: 'คำสั่งซื้อใหม่',
};

const vi: DemoStrings = {
  navLabel: 'Các trang demo',
  navShop: 'Cửa hàng',
  navVariants: 'Biến thể',
  navScriptTag: 'Thẻ script',
  navReact: 'React 19',
  navAdmin: 'Quản trị',
  language: 'Ngôn ngữ',

  shopHeading: 'Đặt hàng',
  chooseProduct: 'Chọn sản phẩm',
  cartTitle: 'Giỏ hàng của bạn',
  shipping: 'Phí vận chuyển',
  free: 'Miễn phí',
  total: 'Tổng cộng',
  order: (x) => `Đơn hàng ${x}`,
  gettingOrder: 'Đang tạo đơn hàng…',
  tryInAMoment: 'Vui lòng thử lại sau giây lát.',
  tryAgain: 'Thử lại',
  pay: (amount) => `Thanh toán ${amount}`,
  paymentTitle: 'Thanh toán',
  payHint: 'Chọn sản phẩm, rồi thanh toán bằng cách quét mã hoặc bấm nút thanh toán.',
  newOrder: 'Tạo đơn hàng mới',
  backToCheckout: 'Quay lại trang thanh toán',
  checkingReturn: 'Đã quay lại từ trang thanh toán: đang kiểm tra thanh toán…',
  orderNote: {
    pending: (o) => `Đơn hàng ${o}: đang chờ thanh toán.`,
    paid: (o) => `Đơn hàng ${o}: đã thanh toán. Cảm ơn bạn!`,
    failed: (o) => `Đơn hàng ${o}: thanh toán thất bại.`,
    cancelled: (o) => `Đơn hàng ${o}: đã hủy.`,
    expired: (o) => `Đơn hàng ${o}: hóa đơn đã hết hạn trước khi được thanh toán.`,
  },
  result: {
    paid: {
      heading: 'Đã nhận thanh toán',
      text: '{brand} đã nhận được thanh toán cho {order}. Bạn có thể đóng trang này và quay lại trang ban đầu.',
    },
    pending: {
      heading: 'Đang chờ xác nhận',
      text: '{brand} đang chờ dịch vụ thanh toán xác nhận khoản thanh toán cho {order}. Trang ban đầu sẽ hiển thị kết quả ngay khi được xác nhận; bạn có thể đóng trang này.',
    },
    failed: {
      heading: 'Thanh toán thất bại',
      text: 'Thanh toán cho {order} không thành công, nên {brand} chưa nhận được tiền. Hãy quay lại trang ban đầu để thử lại, hoặc tạo đơn hàng mới tại đây.',
    },
    cancelled: {
      heading: 'Đã hủy thanh toán',
      text: 'Hóa đơn của {order} đã bị hủy trước khi được thanh toán, nên {brand} chưa nhận được tiền. Hãy quay lại trang ban đầu, hoặc tạo đơn hàng mới tại đây.',
    },
    expired: {
      heading: 'Hóa đơn đã hết hạn',
      text: 'Hóa đơn của {order} đã hết hạn trước khi được thanh toán, nên {brand} chưa nhận được tiền. Hãy quay lại trang ban đầu, hoặc tạo đơn hàng mới tại đây.',
    },
    unknown: {
      heading: 'Đã quay lại từ trang thanh toán',
      text: 'Liên kết này không cho biết kết quả thanh toán của {order}. Trang nơi bạn bắt đầu thanh toán sẽ hiển thị kết quả.',
    },
  },
  yourOrder: 'đơn hàng của bạn',
  namedOrder: 'đơn hàng {ref}',
  resultBill: (x) => `Hóa đơn ${x}`,
  orderUnreachable: 'Không kết nối được máy chủ của cửa hàng để tạo đơn hàng.',
  orderRefused: (status) => `Máy chủ của cửa hàng không tạo được đơn hàng (HTTP ${status}).`,
  orderFailed: 'Máy chủ của cửa hàng không tạo được đơn hàng.',
  products: {
    mug: { name: 'Cốc tráng men dã ngoại', blurb: 'Thép tráng men trắng, 350 ml.' },
    tee: { name: 'Áo thun cotton hữu cơ', blurb: 'Vải dày, unisex, màu xám đá.' },
    poster: { name: 'Tranh in risograph', blurb: 'Khổ A3, in hai màu, có chữ ký.' },
    beans: { name: 'Cà phê hạt single origin', blurb: '250 g, sơ chế ướt, rang sáng.' },
  },
  outcomes: { pending: 'đang chờ', paid: 'đã thanh toán', failed: 'thanh toán thất bại', cancelled: 'đã hủy', expired: 'đã hết hạn' },

  variantsHeading: 'Các biến thể',
  variantsLede: 'Cùng một phần tử ở chế độ nút bấm và theo màu riêng của người bán, mỗi phần tử thanh toán một đơn hàng mới.',
  buttonModeTitle: 'Chế độ nút bấm',
  buttonModeNote: 'Giao diện trên điện thoại hoặc webview trong ứng dụng: một nút mở trang thanh toán.',
  themedTitle: 'Giao diện tùy chỉnh',
  themedNote: 'Chỉ dùng các thuộc tính tùy chỉnh `--bill-checkout-*`, đặt trên phần tử bao ngoài.',
  reloadToTryAgain: 'Tải lại trang để thử lại.',

  scriptTagHeading: 'Chỉ một thẻ script',
  scriptTagLede: 'Trang này không tải mã riêng nào: chỉ có `<script type="module" src="/bill-checkout.js">`, giống cách một trang trên nền tảng bất kỳ dùng nó từ CDN. '
    + 'Máy chủ của trang đã đưa một đơn hàng mới, vé của đơn và ngôn ngữ vào HTML (`order-id`, `order-ticket` và `locale`), như máy chủ của người bán vẫn làm: mỗi lượt truy cập thanh toán một đơn hàng riêng.',
  go: 'Đổi',

  reactLede: 'React 19 gán thuộc tính cho phần tử và lắng nghe các sự kiện tùy chỉnh của nó một cách tự nhiên.',
  reactOrder: (x) => `Đơn hàng ${x} (truyền qua thuộc tính orderId, kèm orderTicket)`,
  reactGettingOrder: 'Đang lấy đơn hàng từ máy chủ của cửa hàng…',
  reactEvents: 'Các sự kiện React đã nhận',
  reactFinal: (outcome) => `Trạng thái React: hóa đơn ${outcome}.`,
  newOrderShort: 'Đơn hàng mới',
};

const zhCN: DemoStrings = {
  navLabel: '演示页面',
  navShop: '商店',
  navVariants: '变体',
  navScriptTag: 'Script 标签',
  navReact: 'React 19',
  navAdmin: '管理',
  language: '语言',

  shopHeading: '结算',
  chooseProduct: '选择商品',
  cartTitle: '购物车',
  shipping: '运费',
  free: '免费',
  total: '合计',
  order: (x) => `订单 ${x}`,
  gettingOrder: '正在生成订单…',
  tryInAMoment: '请稍后再试。',
  tryAgain: '重试',
  pay: (amount) => `支付 ${amount}`,
  paymentTitle: '付款',
  payHint: '请选择商品，然后扫码或点击付款按钮完成支付。',
  newOrder: '新建订单',
  backToCheckout: '返回结算页面',
  checkingReturn: '已从支付页面返回，正在核实付款…',
  orderNote: {
    pending: (o) => `订单 ${o}：等待付款。`,
    paid: (o) => `订单 ${o}：已付款，谢谢！`,
    failed: (o) => `订单 ${o}：付款失败。`,
    cancelled: (o) => `订单 ${o}：已取消。`,
    expired: (o) => `订单 ${o}：账单在付款前已过期。`,
  },
  result: {
    paid: {
      heading: '已收到付款',
      text: '{brand} 已收到{order}的付款。您可以关闭此页面，返回您开始付款的页面。',
    },
    pending: {
      heading: '等待确认',
      text: '{brand} 正在等待支付服务确认{order}的付款。确认后，您开始付款的页面会立即显示结果；此页面可以关闭。',
    },
    failed: {
      heading: '付款失败',
      text: '{order}的付款未成功，{brand} 尚未收到款项。请返回您开始付款的页面重试，或在此新建订单。',
    },
    cancelled: {
      heading: '付款已取消',
      text: '{order}的账单在付款前已被取消，{brand} 尚未收到款项。请返回您开始付款的页面，或在此新建订单。',
    },
    expired: {
      heading: '账单已过期',
      text: '{order}的账单在付款前已过期，{brand} 尚未收到款项。请返回您开始付款的页面，或在此新建订单。',
    },
    unknown: {
      heading: '已从支付页面返回',
      text: '此链接未说明{order}的付款结果。请在您开始付款的页面查看结果。',
    },
  },
  yourOrder: '您的订单',
  // Spaces around the Latin id, none where Chinese meets Chinese.
  namedOrder: '订单 {ref} ',
  resultBill: (x) => `账单 ${x}`,
  orderUnreachable: '无法连接商店服务器，订单未能创建。',
  orderRefused: (status) => `商店服务器无法创建订单（HTTP ${status}）。`,
  orderFailed: '商店服务器无法创建订单。',
  products: {
    mug: { name: '搪瓷露营杯', blurb: '钢制，白色搪瓷，350 毫升。' },
    tee: { name: '有机棉 T 恤', blurb: '厚磅，男女同款，石灰色。' },
    poster: { name: '孔版印刷海报', blurb: 'A3，双色印刷，附签名。' },
    beans: { name: '单一产地咖啡豆', blurb: '250 克，水洗处理，浅度烘焙。' },
  },
  outcomes: { pending: '待付款', paid: '已付款', failed: '付款失败', cancelled: '已取消', expired: '已过期' },

  variantsHeading: '变体',
  variantsLede: '同一个组件，分别以按钮模式和商家自己的配色呈现，各自支付一个新订单。',
  buttonModeTitle: '按钮模式',
  buttonModeNote: '手机或应用内 WebView 中显示的样子：一个打开支付页面的按钮。',
  themedTitle: '自定义主题',
  themedNote: '只用外层容器上设置的 `--bill-checkout-*` 自定义属性。',
  reloadToTryAgain: '请刷新页面重试。',

  scriptTagHeading: '一个 script 标签',
  scriptTagLede: '本页不加载任何自己的代码，只有 `<script type="module" src="/bill-checkout.js">`，就像任何技术栈的页面从 CDN 引用它一样。'
    + '页面的服务器像商家的服务器那样，把新订单、订单票据和语言写入 HTML（`order-id`、`order-ticket` 和 `locale`）：每次访问都支付自己的订单。',
  go: '切换',

  reactLede: 'React 19 原生支持设置该组件的属性并监听它的自定义事件。',
  reactOrder: (x) => `订单 ${x}（通过 orderId 属性传入，并附带 orderTicket）`,
  reactGettingOrder: '正在从商店服务器获取订单…',
  reactEvents: 'React 收到的事件',
  reactFinal: (outcome) => `React 状态：账单${outcome}。`,
  newOrderShort: '新订单',
};

export const DEMO_STRINGS: Record<Language, DemoStrings> = { en, id, ms, th, vi, 'zh-CN': zhCN };
