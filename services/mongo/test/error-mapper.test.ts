/**
 * The gRPC handlers' error answer with and without a service's error mapper: the knowledge and
 * catalog services inject mapMongoError, the gateway and the similarity service none.
 */
import * as grpc from '@grpc/grpc-js';
import { createLogger, unary, unaryMapping, type ErrorMapper } from '@kb/platform';
import { mapMongoError } from '../src/errors';

const logger = createLogger('error-mapper-test', 'silent');
const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), {
  name: 'MongoServerSelectionError',
});

/** What a unary handler that throws `thrown` answers, wrapped with `mapError` (none: `unary` alone). */
function answerTo(thrown: unknown, mapError?: ErrorMapper): Promise<Partial<grpc.ServiceError>> {
  const handler = async () => {
    throw thrown;
  };
  const handle = mapError ? unaryMapping(mapError)(logger, 'Get', handler) : unary(logger, 'Get', handler);
  const call = {
    request: {},
    metadata: new grpc.Metadata(),
    getPath: () => '/kb.test.v1.Test/Get',
    getDeadline: () => Infinity,
  } as unknown as grpc.ServerUnaryCall<object, object>;
  return new Promise((resolve) => handle(call, (err) => resolve(err as Partial<grpc.ServiceError>)));
}

describe('errors a service maps', () => {
  test('when MongoDB is unreachable and the service maps MongoDB errors, then the answer is UNAVAILABLE', async () => {
    expect(await answerTo(unreachable, mapMongoError)).toMatchObject({
      code: grpc.status.UNAVAILABLE,
      details: 'MongoDB is unavailable',
    });
  });

  test('when a service injects no mapper, then an error that is no AppError is INTERNAL without its text', async () => {
    expect(await answerTo(unreachable)).toMatchObject({ code: grpc.status.INTERNAL, details: 'Internal error' });
  });

  test('when the mapper does not know an error, then it stays INTERNAL', async () => {
    expect(await answerTo(new Error('boom'), mapMongoError)).toMatchObject({
      code: grpc.status.INTERNAL,
      details: 'Internal error',
    });
  });
});
