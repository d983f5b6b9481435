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
