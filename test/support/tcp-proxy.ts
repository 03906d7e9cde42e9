import * as net from 'node:net';

/**
 * A TCP proxy to a backend that can be switched off and on at the same address: `down()`
 * refuses new connections and cuts open ones, which to a service is exactly its backend going
 * away, while the backend itself (shared by other test files) is never touched.
 */
export class TcpProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** 0 until the first `up()` picks a free port; later `up()`s reuse it. */
  port = 0;
  constructor(private readonly target: URL) {}

  get url(): string {
    return `${this.target.protocol}//127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(this.target.port), this.target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  async down(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}
