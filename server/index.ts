// `bill-checkout/server`: everything a merchant's server needs (on Node, Bun or Deno), from one
// call (serveBillCheckout) to the parts to assemble by hand (README, "The BFF").
import { postgresModule } from './store/open-store.js';

export { createBillCheckout, CheckoutError, orderTicket } from './app.js';
export type {
  BillCheckout, BillCheckoutHooks, BillCheckoutOptions, BillCheckoutParts, BillNotice, ResolveOrder, ResolveOrderContext,
} from './app.js';
export { ConfigError, loadConfig, MIN_SECRET_LENGTH } from './config.js';
export type { Config, OperationShape, StatusCodes, UpstreamConfig, WebhookConfig } from './config.js';
export type { CheckoutErrorKind } from './domain/errors.js';
export type { OrderAmount } from './domain/orders/order-lookup.js';
export { verifyOrderTicket } from './domain/orders/order-ticket.js';
export type { WebhookPayload } from './domain/notify/notice-worker.js';
export { createLogger, silentLogger } from './log.js';
export type { LogFields, Logger, LoggerOptions, LogLevel } from './log.js';
export { openStore } from './store/open-store.js';
export { createSqliteStore } from './store/sqlite.js';
export type { SqliteStoreOptions } from './store/sqlite.js';
export type { SqliteDriverName } from './store/sqlite-driver.js';
export type { PostgresStoreOptions } from './store/postgres.js';
export type { Store, StoredBill } from './store/types.js';
export * from './upstream/index.js';
export { checkoutStyleHash, renderCheckout } from './http/render/checkout.js';
export type { RenderCheckoutOptions } from './http/render/checkout.js';
export { qrPng, qrSvg } from './http/render/qr-images.js';
export { webSse } from './http/sse/sse-transport.js';
export type { SseTransport } from './http/sse/sse-transport.js';
export { nodeSse } from './platform/node/sse-socket.js';
export { nodeHttpClient } from './platform/node/http-client.js';
export type { NodeHttpClientOptions } from './platform/node/http-client.js';
export { nodeHmacSha256 } from './platform/node/hmac.js';
export { serveBillCheckout } from './process/serve.js';
export type { RunningBillCheckout, ServeBillCheckoutOptions } from './process/serve.js';
export type { RuntimeName } from './platform/runtime.js';
export type { BillView, CreatedBillView, ErrorBody, Outcome } from '../contract/bill-view.js';

// pg is an optional peer dependency: this module imports without it, and only a PostgreSQL store
// needs it (createPostgresStore then says what to install).
const postgres = await postgresModule().catch((error: unknown) => ({ missing: error }));
export const createPostgresStore: typeof import('./store/postgres.js').createPostgresStore = (databaseUrl, options) => {
  if ('missing' in postgres) throw postgres.missing;
  return postgres.createPostgresStore(databaseUrl, options);
};
