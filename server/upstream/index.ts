export { createBudget, BudgetExhaustedError, PRIORITIES, Urgency, type Budget, type BudgetOptions, type BudgetState, type Priority, type PriorityOf, type Turn } from './budget.js';
export { createBillApi, type BillApiOptions } from './client.js';
export {
  BillApiAbortError, BillApiAuthError, BillApiConfigError, BillApiError, BillApiHttpError, BillApiNetworkError, BillApiRejectedError,
  BillApiResponseError, BillApiSignerError, BillApiThrottledError, BillApiTimeoutError, type BillOperation,
} from './errors.js';
export { AMOUNT_FIELDS, parseJsonLossless, quoteNumberMembers } from './lossless-json.js';
export { amountSchema, createdBillSchema, envelopeSchema, listResultSchema, statusRecordSchema } from './schemas.js';
export { createServiceClock, type ServiceClock } from './service-clock.js';
export { BUILT_IN_SIGNER_NAMES, builtInSigner, loadSigner, signatureBase, subtleHmacSha256, type HmacSha256 } from './signers.js';
export type * from './types.js';
