import { createServer } from 'node:net';

const LOOPBACK = '127.0.0.1';

/** A port that is free on 127.0.0.1 right now (the OS picks it; another process could still take it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
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
