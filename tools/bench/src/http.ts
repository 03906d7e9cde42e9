import { Agent, request } from 'undici';

/** A gateway answer outside 2xx: its status and body (the message starts with the call, then the status). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what}: ${status} ${body.slice(0, 500)}`);
  }
}

/**
 * A keep-alive JSON client for the gateway (or several, one call each in turn), failing with an HttpError on any non-2xx; the
 * benchmark's and `npm run eval`'s. undici's `request`, the layer the Elasticsearch client sends
 * the raw twins through, so both sides of a ratio pay the same client: `fetch` on top of it cost
 * ~0.4 ms more per call (docs/performance.md). `timeoutMs`: each call's bound (none by default).
 */
export class Api {
  private readonly dispatcher = new Agent({ keepAliveTimeout: 60_000 });
  /** The gateways the calls go to, in turn (one call each, round robin); one: every call to it. */
  private readonly urls: () => readonly string[];
  private turn = 0;

  /**
   * `baseUrl`: the gateway, the gateways to call in turn, or a function giving them at each call
   * (the benchmark's stack: the replicas' gateways move when the services are started again).
   */
  constructor(
    baseUrl: string | readonly string[] | (() => readonly string[]),
    private readonly token: string,
    private readonly options: { timeoutMs?: number } = {},
  ) {
    if (typeof baseUrl === 'function') this.urls = baseUrl;
    else {
      const list = typeof baseUrl === 'string' ? [baseUrl] : [...baseUrl];
      if (list.length === 0) throw new Error('Api: no gateway to call');
      this.urls = () => list;
    }
  }

  /** The first gateway. */
  get baseUrl(): string {
    return this.urls()[0]!;
  }

  /** The gateways the calls go to, in turn. */
  get baseUrls(): readonly string[] {
    return this.urls();
  }

  /** The same token and options against another gateway (or gateways, in turn). */
  at(baseUrl: string | readonly string[]): Api {
    return new Api(baseUrl, this.token, this.options);
  }

  /** The gateway the next call goes to: the only one, or the next in turn. */
  private next(): string {
    const urls = this.urls();
    if (urls.length === 1) return urls[0]!;
    return urls[this.turn++ % urls.length]!;
  }

  async call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<T> {
    const { timeoutMs } = this.options;
    const res = await request(`${this.next()}/api/knowledge${path}`, {
      method: method as 'GET',
      dispatcher: this.dispatcher,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json', ...extraHeaders },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(timeoutMs !== undefined ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299) throw new HttpError(res.statusCode, text, `${method} ${path}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  post<T = unknown>(path: string, body: unknown, extraHeaders?: Record<string, string>): Promise<T> {
    return this.call<T>('POST', path, body, extraHeaders);
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}
