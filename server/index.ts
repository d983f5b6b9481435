// `bill-checkout/server`: everything a merchant's server needs (on Node, Bun or Deno), from one
// call (serveBillCheckout) to the parts to assemble by hand (docs/server.md, "The BFF").
import { postgresModule } from './store/open-store.js';

// What a merchant uses, and nothing else: each name is listed in the README ("The server's public
// surface") and pinned by test/build/public-surface.test.ts. Adding one is a contract change.

// One call: the BFF as `npm start` runs it, with the merchant's hooks, routes and pages.
export { serveBillCheckout } from './process/serve.js';
export type { RunningBillCheckout, ServeBillCheckoutOptions } from './process/serve.js';
export type { RuntimeName } from './platform/runtime.js';

// The app and its hooks, assembled by hand.
export { createBillCheckout, CheckoutError, orderTicket } from './app.js';
export type {
  BillCheckout, BillCheckoutHooks, BillCheckoutOptions, BillCheckoutParts, BillNotice, ResolveOrder, ResolveOrderContext,
} from './app.js';
export type { CheckoutErrorKind } from './domain/errors.js';
export type { OrderAmount } from './domain/orders/order-lookup.js';
export { verifyOrderTicket } from './domain/orders/order-ticket.js';
export type { WebhookPayload } from './domain/notify/notice-worker.js';

// Configuration and logs.
export { ConfigError, loadConfig } from './config.js';
export type { Config, UpstreamConfig } from './config.js';
export { createLogger, silentLogger } from './log.js';
export type { LogFields, Logger, LoggerOptions, LogLevel } from './log.js';

// The stores.
export { openStore } from './store/open-store.js';
export { createSqliteStore } from './store/sqlite/store.js';
export type { SqliteStoreOptions } from './store/sqlite/store.js';
export type { SqliteDriverName } from './store/sqlite/driver.js';
export type { PostgresStoreOptions } from './store/postgres/store.js';
export type { Store, StoredBill } from './store/types.js';

// The service's client: its signers, the HTTP it runs on, and one error class per cause.
export { createBillApi } from './upstream/client.js';
export type { BillApiOptions } from './upstream/client.js';
export { builtInSigner, loadSigner } from './upstream/signers.js';
export { cachedAccessToken } from './upstream/access-token.js';
export type { AccessTokens, FetchedToken } from './upstream/access-token.js';
export type { HmacSha256 } from './upstream/signers.js';
export {
  BillApiAbortError, BillApiAuthError, BillApiConfigError, BillApiError, BillApiHttpError, BillApiNetworkError, BillApiRejectedError,
  BillApiResponseError, BillApiSignerError, BillApiThrottledError, BillApiTimeoutError,
} from './upstream/errors.js';
export type { BillOperation } from './upstream/errors.js';
export type {
  BillApi, HttpClient, HttpRequest, HttpResponse, SignBase, SignInput, SignResult, Signer, SignerAnswer, SignerRequest,
} from './upstream/types.js';

// The checkout in the page's first HTML, and QR images.
export { checkoutStyleHash, renderCheckout } from './http/render/checkout.js';
export type { RenderCheckoutOptions } from './http/render/checkout.js';
export { qrPng, qrSvg } from './http/render/qr-images.js';

// Runtime adapters: the web defaults, and Node's faster ones.
export { webSse } from './http/sse/sse-transport.js';
export type { SseTransport } from './http/sse/sse-transport.js';
export { nodeSse } from './platform/node/sse-socket.js';
export { nodeHttpClient } from './platform/node/http-client.js';
export type { NodeHttpClientOptions } from './platform/node/http-client.js';
export { nodeHmacSha256 } from './platform/node/hmac.js';

// The wire contract the browser sees.
export type { BillView, CreatedBillView, ErrorBody, Outcome } from '../contract/bill-view.js';

// pg is an optional peer dependency: this module imports without it, and only a PostgreSQL store
// needs it (createPostgresStore then says what to install).
const postgres = await postgresModule().catch((error: unknown) => ({ missing: error }));
export const createPostgresStore: typeof import('./store/postgres/store.js').createPostgresStore = (databaseUrl, options) => {
  if ('missing' in postgres) throw postgres.missing;
  return postgres.createPostgresStore(databaseUrl, options);
};
