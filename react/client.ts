'use client';
// `bill-checkout/react` under the `react-server` condition (a Server Component's import in Next.js):
// the directive that makes <BillCheckout> a client reference there. Other bundlers take index.ts,
// with no directive for Vite (Rolldown) to warn that it drops when bundling.
export { BillCheckout } from './index.js';
export type { BillCheckoutElement, BillCheckoutEventProps, BillCheckoutProps } from './index.js';
