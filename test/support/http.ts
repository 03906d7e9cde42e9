/** The tests' HTTP client: exact status lines, headers and bodies, with the Host header under the test's control. */
import { request, type IncomingHttpHeaders } from 'node:http';

export interface RequestOptions {
  method?: string;
  token?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as is. */
  body?: unknown;
  /** Send the body chunked, without Content-Length. */
  chunked?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

/**
 * node:http rather than fetch: fetch does not let a caller set the Host header, and
 * `<tenant>.localhost` names do not resolve in Node (curl resolves them itself).
 */
export function httpRequest(
  port: number,
  host: string,
  path: string,
  init: RequestOptions = {},
): Promise<HttpResponse> {
  const named = (name: string) => Object.keys(init.headers ?? {}).some((h) => h.toLowerCase() === name);
  const headers: Record<string, string> = { ...(named('host') ? {} : { Host: host }), ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  let payload: string | undefined;
  if (init.body !== undefined) {
    payload = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    if (!named('content-type')) headers['Content-Type'] = 'application/json';
    if (!init.chunked) headers['Content-Length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * A fetch for clients that take one (the MCP SDK's transport) that sends every request to the
 * gateway on 127.0.0.1 with the given Host header, as httpRequest does.
 */
export function hostFetch(port: number, host: string): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string')
      throw new Error('hostFetch sends string bodies only');
    const res = await httpRequest(port, host, url.pathname + url.search, {
      method: init.method ?? 'GET',
      headers,
      ...(typeof init.body === 'string' ? { body: init.body } : {}),
    });
    const responseHeaders = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v !== undefined) responseHeaders.set(k, Array.isArray(v) ? v.join(', ') : v);
    }
    const empty = [101, 204, 205, 304].includes(res.status) || res.text === '';
    return new Response(empty ? null : res.text, { status: res.status, headers: responseHeaders });
  };
}
