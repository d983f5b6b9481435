// The parts inside an app, for this repository's tests and benches: not in package.json's
// "exports", so no merchant's code depends on them.
export { internalsOf } from './app.js';
export type { BillCheckoutInternals } from './app.js';
