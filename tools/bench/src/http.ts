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
 * A keep-alive JSON client for the gateway, failing with an HttpError on any non-2xx; the
 * benchmark's and `npm run eval`'s. undici's `request`, the layer the Elasticsearch client sends
 * the raw twins through, so both sides of a ratio pay the same client: `fetch` on top of it cost
 * ~0.4 ms more per call (docs/performance.md). `timeoutMs`: each call's bound (none by default).
 */
export class Api {
  private readonly dispatcher = new Agent({ keepAliveTimeout: 60_000 });

  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    private readonly options: { timeoutMs?: number } = {},
  ) {}

  /** The same token and options against another gateway. */
  at(baseUrl: string): Api {
    return new Api(baseUrl, this.token, this.options);
  }

  async call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<T> {
    const { timeoutMs } = this.options;
    const res = await request(`${this.baseUrl}/api/knowledge${path}`, {
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
