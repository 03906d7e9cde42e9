import { startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
});
afterAll(async () => {
  await stack?.stop();
});

test('when a token goes over its requests per minute, then 429 with Retry-After, and other tokens are unaffected', async () => {
  const token = await stack.tenantWithToken('limited');
  const other = await stack.token('limited', 'Viewer');
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++)
    statuses.push((await stack.request('limited', '/api/knowledge/categories', { token })).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  const limited = await stack.request('limited', '/api/knowledge/categories', { token });
  expect(limited.status).toBe(429);
  expect(limited.json).toEqual({ detail: 'Rate limit exceeded' });
  expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(0);
  expect(limited.headers['x-request-id']).toBeDefined();
  expect((await stack.request('limited', '/api/knowledge/categories', { token: other })).status).toBe(200);
  expect((await stack.request('limited', '/healthz')).status).toBe(200);
});
