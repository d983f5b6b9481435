/** A store call named a bill that is not there (by billId or merchantReference). */
export class BillNotFoundError extends Error {
  override name = 'BillNotFoundError';
}

/** A change that would contradict what is stored (for example a second billId for one bill). */
export class StoreConflictError extends Error {
  override name = 'StoreConflictError';
}

/** The store could not make its writes durable (a failed disk sync): it refuses writes until restarted. */
export class StoreSyncError extends Error {
  override name = 'StoreSyncError';
}

/**
 * The store cannot be reached or used right now (PostgreSQL refused, dropped or timed out the
 * connection or is shutting down; SQLite's file is locked, unreadable or on a failing disk). The
 * call may work again without a restart: the HTTP layer answers 503 with Retry-After, and the
 * service retries its callbacks. `message` tells the operator what to check; `cause` is the
 * driver's error. Neither is ever shown to a client.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}
