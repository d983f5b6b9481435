/** A port of 127.0.0.1 that was free a moment ago (for a child process that listens on it itself). */
export function freePort(): Promise<number>;
