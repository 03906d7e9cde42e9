/**
 * X-Forwarded-* as an ingress sends them: honoured only with TRUST_PROXY, and then only the
 * entries the proxies appended (a client can write its own X-Forwarded-For).
 */
import { httpRequest, startStack, uniqueId, type Stack } from '../support/stack';

const categories = '/api/knowledge/categories';

describe('when the gateway does not trust a proxy (the default)', () => {
  let stack: Stack;
  const home = uniqueId('home');
  const other = uniqueId('other');
  beforeAll(async () => {
    stack = await startStack({ env: { AUTH_FAILURES_PER_MINUTE: '3' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('then X-Forwarded-Host does not choose the tenant', async () => {
    const token = await stack.tenantWithToken(home);
    await stack.tenantWithToken(other);
    const res = await httpRequest(stack.port, `${home}.localhost`, categories, {
      token,
      headers: { 'X-Forwarded-Host': `${other}.localhost` },
    });
    expect(res.status).toBe(200);
  });

  test('then X-Forwarded-For does not give a client a fresh failed-authentication count', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i++) {
      statuses.push(
        (
          await httpRequest(stack.port, `${home}.localhost`, categories, {
            headers: { 'X-Forwarded-For': `203.0.113.${i}` },
          })
        ).status,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});

describe('when the gateway trusts one proxy (TRUST_PROXY=true, as the Helm chart sets it behind the ingress)', () => {
  let stack: Stack;
  const home = uniqueId('home');
  const other = uniqueId('other');
  beforeAll(async () => {
    stack = await startStack({ env: { AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('then X-Forwarded-Host chooses the tenant', async () => {
    await stack.tenantWithToken(home);
    const token = await stack.tenantWithToken(other);
    const res = await httpRequest(stack.port, `${home}.localhost`, categories, {
      token,
      headers: { 'X-Forwarded-Host': `${other}.localhost` },
    });
    expect(res.status).toBe(200);
  });

  test('then each client address the proxy appended has its own bucket, and what a client wrote on the left is ignored', async () => {
    const from = (xff: string) =>
      httpRequest(stack.port, `${home}.localhost`, categories, { headers: { 'X-Forwarded-For': xff } });
    // Four clients, one request each: nobody is limited.
    for (let i = 1; i <= 4; i++) expect((await from(`198.51.100.${i}`)).status).toBe(401);
    // One client forging a new address on each request: the proxy's entry (rightmost) is the key.
    const forged: number[] = [];
    for (let i = 1; i <= 4; i++) forged.push((await from(`192.0.2.${i}, 203.0.113.77`)).status);
    expect(forged).toEqual([401, 401, 401, 429]);
  });
});
