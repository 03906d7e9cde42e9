/**
 * Read-only routes start with the identity a token had when it was last checked, while it is
 * checked again; the answer waits for the check and follows it (RouteTable).
 */
import { AppError } from '@kb/common';
import { IDENTITY, startGateway, type TestGateway } from './support/gateway';

const SIMILAR = '/api/knowledge/search/similar';
const similarBody = { anchor_product_ids: ['p1'] };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('token check overlapping a read-only route', () => {
  let gw: TestGateway;
  const events: string[] = [];
  let identity: typeof IDENTITY | 'revoked' = IDENTITY;

  beforeEach(async () => {
    gw = await startGateway();
    events.length = 0;
    identity = IDENTITY;
    gw.knowledge.AuthenticateApiToken = async () => {
      events.push('check started');
      await sleep(60);
      events.push('check done');
      if (identity === 'revoked') throw new AppError('unauthenticated', 'Invalid or expired token');
      return identity;
    };
    gw.catalog.SimilarProducts = (req: { caller: { role: string } }) => {
      events.push(`similar as ${req.caller.role}`);
      return { anchor_product_ids: ['p1'], vector_field: 'description', hits: [], explain_json: '' };
    };
    gw.catalog.UpsertProduct = () => {
      events.push('write');
      throw new AppError('invalid', 'stop here', [{ loc: ['body'], msg: 'stop', type: 'value_error' }]);
    };
  });
  afterEach(() => gw.close());

  test('when a token is seen for the first time, then the route waits for the check', async () => {
    expect((await gw.request(SIMILAR, { body: similarBody })).status).toBe(200);
    expect(events).toEqual(['check started', 'check done', 'similar as Admin']);
  });

  test(
    'when a checked token comes again, then the route starts ' +
      'while the token is checked, and answers once the check agrees',
    async () => {
      await gw.request(SIMILAR, { body: similarBody });
      events.length = 0;
      expect((await gw.request(SIMILAR, { body: similarBody })).status).toBe(200);
      expect(events).toEqual(['check started', 'similar as Admin', 'check done']);
    },
  );

  test(
    'when the token was revoked since, then 401: the work started is ' +
      'not answered, and the next request waits for the check again',
    async () => {
      await gw.request(SIMILAR, { body: similarBody });
      identity = 'revoked';
      const res = await gw.request(SIMILAR, { body: similarBody });
      expect([res.status, res.json]).toEqual([401, { detail: 'Invalid or expired token' }]);
      identity = IDENTITY;
      events.length = 0;
      expect((await gw.request(SIMILAR, { body: similarBody })).status).toBe(200);
      expect(events).toEqual(['check started', 'check done', 'similar as Admin']);
    },
  );

  test("when the token's identity changed since (another role), then the route runs again as the new identity", async () => {
    await gw.request(SIMILAR, { body: similarBody });
    identity = { ...IDENTITY, role: 'Viewer', scopes: ['knowledge:read'] };
    events.length = 0;
    expect((await gw.request(SIMILAR, { body: similarBody })).status).toBe(200);
    expect(events).toEqual(['check started', 'similar as Admin', 'check done', 'similar as Viewer']);
  });

  test('when a route writes, then it never starts before the check', async () => {
    await gw.request(SIMILAR, { body: similarBody });
    events.length = 0;
    await gw.request('/api/knowledge/products?site_id=shop', {
      method: 'POST',
      body: { title: 'Kettle', language: 'en' },
    });
    expect(events.indexOf('check done')).toBeLessThan(events.indexOf('write'));
  });

  test('when a request is invalid, then a caller whose token fails learns 401, not the validation error', async () => {
    await gw.request(SIMILAR, { body: similarBody });
    identity = 'revoked';
    const res = await gw.request(SIMILAR, { body: { anchor_product_ids: [] } });
    expect(res.status).toBe(401);
  });
});
