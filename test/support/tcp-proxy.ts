import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { ExecutionContext } from 'ava';

/** A TCP proxy in front of the server, which the test can take away and bring back on the same port. */
export async function proxyTo(t: ExecutionContext, target: URL): Promise<{ port: number; stop(): Promise<void>; start(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const start = async (): Promise<void> => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  };
  const stop = async (): Promise<void> => {
    const s = server;
    server = undefined;
    if (!s) return;
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => s.close(resolve));
  };
  await start();
  t.teardown(stop);
  return { port, stop, start };
}
