import * as grpc from '@grpc/grpc-js';
import { callUnary, CLIENT_OPTIONS } from './client';
import { grpcTarget } from './balancing';
import { similarityProto } from './proto';
import type { CallerSigner } from './caller-assertion';

// The last overload of a generated client method is (argument, callback): read the types off it.
export type RequestOf<M> = M extends (
  argument: infer Req,
  callback: grpc.requestCallback<infer _Res>,
) => grpc.ClientUnaryCall
  ? Req
  : never;
export type ResponseOf<M> = M extends (
  argument: infer _Req,
  callback: grpc.requestCallback<infer Res>,
) => grpc.ClientUnaryCall
  ? Res
  : never;
export type UnaryName<C> = { [K in keyof C]: [RequestOf<C[K]>] extends [never] ? never : K }[keyof C] & string;

/** A generated gRPC client with a typed `call(method, request)` that always sets a deadline. */
export interface TypedClient<C extends grpc.Client> {
  readonly name: string;
  readonly client: C;
  /** Unary call by method name with the configured deadline; errors arrive as AppErrors. */
  call<M extends UnaryName<C>>(
    method: M,
    request: RequestOf<C[M]>,
    options?: { deadlineMs?: number },
  ): Promise<ResponseOf<C[M]>>;
  close(): void;
}

/** `name`: the service called, the audience of the assertions `sign` makes for each call. */
export function typedClient<C extends grpc.Client>(
  name: string,
  client: C,
  deadlineMs: number,
  sign: CallerSigner,
): TypedClient<C> {
  return {
    name,
    client,
    call: (method, request, options) =>
      callUnary(client, (client as unknown as Record<string, never>)[method] as never, request, {
        service: name,
        deadlineMs: options?.deadlineMs ?? deadlineMs,
        sign,
      }),
    close: () => client.close(),
  };
}

/** The similarity service as knowledge and catalog call it. */
export type SimilarityClient = TypedClient<
  import('../generated/kb/similarity/v1/SimilarityService').SimilarityServiceClient
>;

/**
 * A similarity client at `address` (host:port) for one operation outside the services (the admin
 * CLI): plain-text transport as between the services, each call signed by `sign`; close it after.
 */
export function similarityClientAt(address: string, deadlineMs: number, sign: CallerSigner): SimilarityClient {
  const Service = similarityProto().kb.similarity.v1.SimilarityService;
  const client = new Service(grpcTarget(address), grpc.credentials.createInsecure(), CLIENT_OPTIONS);
  return typedClient('similarity', client, deadlineMs, sign);
}
