// A free port for a server a test or benchmark starts. Plain JavaScript (typed by ports.d.mts):
// test/engines/ and bench/ load it without TypeScript.
import { createServer } from 'node:net';

/** A port of 127.0.0.1 that was free a moment ago (for a child process that listens on it itself). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
