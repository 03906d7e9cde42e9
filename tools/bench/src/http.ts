/** A keep-alive JSON client for the gateway (undici through fetch), failing on any non-2xx. */
export class Api {
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
    const res = await fetch(`${this.baseUrl}/api/knowledge${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${this.token}`,
        'Content-Type': 'application/json',
        ...this.headers,
        ...extraHeaders,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  post<T = unknown>(path: string, body: unknown, extraHeaders?: Record<string, string>): Promise<T> {
    return this.call<T>('POST', path, body, extraHeaders);
  }
}
