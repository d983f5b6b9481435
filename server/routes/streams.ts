/** Open SSE streams: a cap (MAX_SSE_CONNECTIONS) and a way to end them all on stop. */
export interface StreamRegistry {
  /** Registers a stream's closer, or returns null when the cap is reached. */
  open(close: () => void): (() => void) | null;
  size(): number;
  closeAll(): void;
}

export function createStreamRegistry(max: number): StreamRegistry {
  const closers = new Set<() => void>();
  return {
    open(close) {
      if (closers.size >= max) return null;
      const entry = () => close();
      closers.add(entry);
      return () => {
        closers.delete(entry);
      };
    },
    size: () => closers.size,
    closeAll() {
      for (const close of [...closers]) close();
    },
  };
}
