import * as net from 'node:net';

/**
 * A TCP proxy to a backend that can be switched off and on at the same address: `down()`
 * refuses new connections and cuts open ones, which to a service is exactly its backend going
 * away (killed), while the backend itself (shared by other test files) is never touched.
 * `freeze()` is the other failure: connections stay open and new ones are accepted, but no
 * byte goes through until `thaw()` (a backend stopped with SIGSTOP, a hung host).
 */
export class TcpProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private frozen = false;
  /** Connections accepted while frozen: joined to the backend on `thaw()`. */
  private held: net.Socket[] = [];
  /** 0 until the first `up()` picks a free port; later `up()`s reuse it. */
  port = 0;
  constructor(private readonly target: URL) {}

  get url(): string {
    return `${this.target.protocol}//127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    this.server = net.createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      if (this.frozen) {
        client.pause();
        client.on('error', () => client.destroy());
        this.held.push(client);
      } else this.join(client);
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  async down(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    this.held = [];
    await closed;
  }

  /** Nothing passes either way, nothing is closed. */
  freeze(): void {
    this.frozen = true;
    for (const s of this.sockets) {
      s.unpipe();
      s.pause();
    }
  }

  thaw(): void {
    this.frozen = false;
    for (const s of this.sockets) {
      const peer = (s as net.Socket & { peer?: net.Socket }).peer;
      if (peer) s.pipe(peer);
      s.resume();
    }
    for (const client of this.held.splice(0)) if (!client.destroyed) this.join(client);
  }

  private join(client: net.Socket): void {
    const upstream = net.connect(Number(this.target.port), this.target.hostname);
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    Object.assign(client, { peer: upstream });
    Object.assign(upstream, { peer: client });
    for (const s of [client, upstream]) {
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
    client.resume();
  }
}
