import { metrics } from '@opentelemetry/api';
import {
  backlogAgeSeconds,
  cachedReading,
  observeDependencies,
  observeIndexBacklog,
  recordRpcClientCall,
  recordRpcServerCall,
  rpcAttributes,
} from '../src/metrics';

describe('gRPC call attributes', () => {
  test('when a call succeeds, then it carries the fully qualified method and OK, and no error type', () => {
    expect(rpcAttributes('server', '/kb.catalog.v1.CatalogService/ListSites', 'OK')).toEqual({
      'rpc.system.name': 'grpc',
      'rpc.method': 'kb.catalog.v1.CatalogService/ListSites',
      'rpc.status_code': 'OK',
    });
  });

  test.each(['UNKNOWN', 'DEADLINE_EXCEEDED', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS'])(
    'when a server answers %s, then it counts as a server error',
    (code) => {
      expect(rpcAttributes('server', '/s/m', code)['error.type']).toBe(code);
    },
  );

  test.each([
    'NOT_FOUND',
    'INVALID_ARGUMENT',
    'ALREADY_EXISTS',
    'ABORTED',
    'PERMISSION_DENIED',
    'UNAUTHENTICATED',
    'FAILED_PRECONDITION',
  ])(
    "when a server answers %s, then it is the caller's error, not the server's, but a client records it as one",
    (code) => {
      expect(rpcAttributes('server', '/s/m', code)['error.type']).toBeUndefined();
      expect(rpcAttributes('client', '/s/m', code)['error.type']).toBe(code);
    },
  );
});

describe('a cached reading', () => {
  test('when asked many times within its age, then it reads once; after it, once more', async () => {
    let clock = 1_000;
    let reads = 0;
    const reading = cachedReading(
      async () => ++reads,
      5_000,
      () => clock,
    );
    expect(await Promise.all([reading(), reading(), reading()])).toEqual([1, 1, 1]);
    clock += 4_999;
    expect(await reading()).toBe(1);
    clock += 1;
    expect(await reading()).toBe(2);
    expect(reads).toBe(2);
  });

  test('when a reading fails or has no value, then nothing is kept and the next ask reads again', async () => {
    const answers: (() => Promise<number | undefined>)[] = [
      () => Promise.reject(new Error('down')),
      async () => undefined,
      async () => 7,
    ];
    const reading = cachedReading(
      () => (answers.shift() as () => Promise<number | undefined>)(),
      60_000,
      () => 0,
    );
    expect(await reading()).toBeUndefined();
    expect(await reading()).toBeUndefined();
    expect(await reading()).toBe(7);
    expect(await reading()).toBe(7);
  });

  test('when the reader throws before returning a promise, then the ask still resolves undefined', async () => {
    const reading = cachedReading<number>(() => {
      throw new Error('no connection');
    }, 1_000);
    expect(await reading()).toBeUndefined();
  });
});

describe('the backlog age', () => {
  test('when nothing waits, then the age is 0', () => {
    expect(backlogAgeSeconds(null, Date.now())).toBe(0);
  });

  test('when the oldest waiting write is 90 s old, then the age is 90', () => {
    expect(backlogAgeSeconds(new Date(10_000), 100_000)).toBe(90);
  });

  test("when the writer's clock is ahead, then the age is 0, never negative", () => {
    expect(backlogAgeSeconds(new Date(100_500), 100_000)).toBe(0);
  });
});

describe('without a metrics SDK (the default, and every in-process test)', () => {
  test('when metrics are recorded and observed, then the meter is a no-op and no callback runs', async () => {
    expect(metrics.getMeterProvider().constructor.name).toBe('NoopMeterProvider');
    const read = jest.fn(async () => ({ count: 1, oldest: null }));
    const states = jest.fn(() => [['mongodb', true]] as [string, boolean][]);
    const stopBacklog = observeIndexBacklog('products', read);
    const stopDependencies = observeDependencies(states);
    recordRpcServerCall('/kb.catalog.v1.CatalogService/ListSites', 'OK', 0.001);
    recordRpcClientCall('/kb.catalog.v1.CatalogService/ListSites', 'UNAVAILABLE', 0.001);
    stopBacklog();
    stopDependencies();
    expect(read).not.toHaveBeenCalled();
    expect(states).not.toHaveBeenCalled();
  });
});

describe('the backlog gauges, read by a metrics SDK', () => {
  // A reader the test collects from by hand, as a Prometheus scrape would.
  const { MeterProvider, MetricReader } =
    jest.requireActual<typeof import('@opentelemetry/sdk-metrics')>('@opentelemetry/sdk-metrics');
  class ScrapeReader extends MetricReader {
    protected async onForceFlush(): Promise<void> {}
    protected async onShutdown(): Promise<void> {}
  }

  async function scrape(read: () => Promise<{ count: number; oldest: Date | null; errors?: number } | undefined>) {
    const reader = new ScrapeReader();
    const provider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    const stop = observeIndexBacklog('entries', read, 0);
    try {
      const { resourceMetrics } = await reader.collect();
      return Object.fromEntries(
        resourceMetrics.scopeMetrics
          .flatMap((s) => s.metrics)
          .flatMap((m) => m.dataPoints.map((p) => [`${m.descriptor.name} ${JSON.stringify(p.attributes)}`, p.value])),
      );
    } finally {
      stop();
      await provider.shutdown();
      metrics.disable();
    }
  }

  test('when the reading has index errors, then kb.indexer.errors.documents reports them beside the backlog', async () => {
    const values = await scrape(async () => ({ count: 4, oldest: null, errors: 3 }));
    expect(values).toEqual({
      'kb.indexer.backlog.documents {"kb.document.kind":"entries"}': 4,
      'kb.indexer.backlog.oldest_age {"kb.document.kind":"entries"}': 0,
      'kb.indexer.errors.documents {"kb.document.kind":"entries"}': 3,
    });
  });

  test('when the reading has no error count or fails, then that series is absent rather than 0', async () => {
    expect(Object.keys(await scrape(async () => ({ count: 0, oldest: null })))).toEqual([
      'kb.indexer.backlog.documents {"kb.document.kind":"entries"}',
      'kb.indexer.backlog.oldest_age {"kb.document.kind":"entries"}',
    ]);
    expect(await scrape(async () => undefined)).toEqual({});
  });
});
