import { createServer, type Server } from 'node:net';

const LOOPBACK = '127.0.0.1';

/** A port that is free on 127.0.0.1 right now (the OS picks it; another process could still take it). */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/**
 * `count` distinct ports free on 127.0.0.1 right now, none of `avoid`: all are held open at once
 * while they are picked, so no two are the same (separate freePort() calls can return a port
 * twice, once it is closed again). Another process could still take one before it is used.
 */
export async function freePorts(count: number, avoid: Iterable<number> = []): Promise<number[]> {
  const skip = new Set(avoid);
  const held: Server[] = [];
  const ports: number[] = [];
  try {
    while (ports.length < count) {
      const server = createServer();
      server.unref();
      held.push(server);
      const port = await new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, LOOPBACK, () => {
          const address = server.address();
          if (typeof address === 'object' && address) resolve(address.port);
          else reject(new Error('no port'));
        });
      });
      if (!skip.has(port)) ports.push(port);
    }
  } finally {
    await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
  }
  return ports;
}

/**
 * Fails with a message naming `what` needs the port when something already listens on it,
 * so a busy fixed port is a clear error at start rather than EADDRINUSE deep in a service.
 */
export function assertPortFree(port: number, what: string, host = LOOPBACK): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (err: NodeJS.ErrnoException) => {
      const why = err.code === 'EADDRINUSE' ? 'is already in use' : `cannot be opened (${err.code ?? err.message})`;
      reject(
        new Error(
          `Port ${port} on ${host} ${why}; ${what} needs it. ` +
            `Stop whatever holds it (e.g. \`ss -ltnp 'sport = :${port}'\`) or choose another port.`,
        ),
      );
    });
    server.listen(port, host, () => server.close(() => resolve()));
  });
}
