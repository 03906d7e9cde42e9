import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Api } from '../src/http';
import { readSettings, replicaCounts } from '../src/settings';

describe("the benchmark's replicas (BENCH_REPLICAS)", () => {
  const saved = { only: process.env.BENCH_ONLY, replicas: process.env.BENCH_REPLICAS };
  afterEach(() => {
    for (const [key, value] of [
      ['BENCH_ONLY', saved.only],
      ['BENCH_REPLICAS', saved.replicas],
    ] as const)
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
  });

  it('when BENCH_REPLICAS is unset, one count, or a list, then it reads as those counts', () => {
    expect(replicaCounts(undefined)).toEqual([1]);
    expect(replicaCounts('2')).toEqual([2]);
    expect(replicaCounts('1, 2')).toEqual([1, 2]);
    for (const wrong of ['0', '9', '1.5', 'two', '1,,2']) expect(() => replicaCounts(wrong)).toThrow(/BENCH_REPLICAS/);
  });

  it('when BENCH_REPLICAS is a list, then the replicas comparison runs, and no other mode takes a list', () => {
    delete process.env.BENCH_ONLY;
    process.env.BENCH_REPLICAS = '1,2';
    expect(readSettings()).toMatchObject({ only: 'replicas', replicas: [1, 2], products: 2000 });
    process.env.BENCH_ONLY = 'search';
    expect(() => readSettings()).toThrow(/only with BENCH_ONLY=replicas/);
    process.env.BENCH_ONLY = 'replicas';
    delete process.env.BENCH_REPLICAS;
    expect(readSettings().replicas).toEqual([1, 2]);
    delete process.env.BENCH_ONLY;
    expect(readSettings()).toMatchObject({ only: undefined, replicas: [1] });
  });

  describe('the client of the gateways', () => {
    const servers: Server[] = [];
    const hits: number[][] = [];
    let urls: string[] = [];
    beforeAll(async () => {
      for (let i = 0; i < 2; i++) {
        const seen: number[] = [];
        hits.push(seen);
        const server = createServer((req, res) => {
          seen.push(Number(req.url?.split('/').pop()));
          res.setHeader('content-type', 'application/json');
          res.end('{}');
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        servers.push(server);
      }
      urls = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`);
    });
    afterAll(async () => {
      for (const s of servers) await new Promise((resolve) => s.close(resolve));
    });
    beforeEach(() => hits.forEach((h) => h.splice(0)));

    it('when it is given one gateway, then every call goes to it', async () => {
      const api = new Api(urls[0]!, 't');
      for (let i = 0; i < 4; i++) await api.call('GET', `/x/${i}`);
      await api.close();
      expect(hits).toEqual([[0, 1, 2, 3], []]);
    });

    it('when it is given two gateways, then the calls go to them in turn', async () => {
      const api = new Api(() => urls, 't');
      for (let i = 0; i < 4; i++) await api.call('GET', `/x/${i}`);
      await api.close();
      expect(hits).toEqual([
        [0, 2],
        [1, 3],
      ]);
    });
  });
});
