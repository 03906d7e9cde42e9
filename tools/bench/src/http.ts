import { Agent, request } from 'undici';

/**
 * A keep-alive JSON client for the gateway, failing on any non-2xx. undici's `request`, the
 * layer the Elasticsearch client sends the raw twins through, so both sides of a ratio pay the
 * same client: `fetch` on top of it cost ~0.4 ms more per call (docs/performance.md).
 */
export class Api {
  private readonly dispatcher = new Agent({ keepAliveTimeout: 60_000 });

  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  async call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<T> {
    const res = await request(`${this.baseUrl}/api/knowledge${path}`, {
      method: method as 'GET',
      dispatcher: this.dispatcher,
      headers: {
        authorization: `Bearer ${this.token}`,
        'content-type': 'application/json',
        ...this.headers,
        ...extraHeaders,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299)
      throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  post<T = unknown>(path: string, body: unknown, extraHeaders?: Record<string, string>): Promise<T> {
    return this.call<T>('POST', path, body, extraHeaders);
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}
