// A TCP relay in front of the BFF whose "network" the test can cut: drop() resets every open
// connection (the widget's live stream included) and every new one until restore().
import { connect, createServer, type Socket } from 'node:net';

export interface NetProxy {
  url: string;
  drop(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startNetProxy(targetPort: number): Promise<NetProxy> {
  const sockets = new Set<Socket>();
  let down = false;
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    drop() {
      down = true;
      for (const s of sockets) s.resetAndDestroy();
    },
    restore() {
      down = false;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((ok) => server.close(() => ok()));
    },
  };
}
