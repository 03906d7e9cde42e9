/**
 * The demo seeder's HTTP client: JSON calls to the gateway with a bearer token, addressed to a
 * tenant by its `<tenant>.localhost` host name (node:http, because fetch cannot set Host and
 * `*.localhost` names do not resolve in Node).
 */
import { Agent, request } from 'node:http';

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
  text: string;
}

export interface DemoApi {
  call(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  /** As call, but anything other than `expect` is an error naming the call and the answer. */
  ok<T>(method: string, path: string, body: unknown, expect: number | number[]): Promise<T>;
  close(): void;
}

export function demoApi(gatewayUrl: string, token: string, tenant: string): DemoApi {
  const url = new URL(gatewayUrl);
  if (url.protocol !== 'http:')
    throw new Error(`the demo seeder speaks plain http to a local gateway, not ${url.protocol}`);
  const port = Number(url.port || 80);
  const host = `${tenant}.localhost:${port}`;
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });

  const call = (method: string, path: string, body?: unknown): Promise<ApiResponse> => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {
      Host: host,
      Authorization: `Bearer ${token}`,
      Accept: 'application/json',
    };
    if (payload !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port, path, method, headers, agent }, (res) => {
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
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json, text });
        });
        res.on('error', reject);
      });
      req.setTimeout(120_000, () => req.destroy(new Error(`${method} ${path}: no answer within 120 s`)));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  };

  return {
    call,
    async ok<T>(method: string, path: string, body: unknown, expect: number | number[]): Promise<T> {
      const res = await call(method, path, body);
      if (!(Array.isArray(expect) ? expect : [expect]).includes(res.status))
        throw new Error(`demo data: ${method} ${path} answered ${res.status}: ${res.text.slice(0, 500)}`);
      return res.json as T;
    },
    close: () => agent.destroy(),
  };
}
