/**
 * @kb/platform: What every service process stands on: configuration, errors, logging, telemetry
 * and metrics, gRPC servers, clients, deadlines and caller assertions, the service contracts.
 */
export * from './api-token';
export * from './caller';
export * from './config';
export * from './contracts';
export * from './dependency-watch';
export * from './errors';
export * from './grpc/balancing';
export * from './grpc/caller-assertion';
export * from './grpc/client';
export * from './grpc/deadline';
export * from './grpc/proto';
export * from './grpc/server-auth';
export * from './grpc/server';
export * from './grpc/typed-client';
export * from './logging';
export * from './metrics';
export * from './oauth';
export * from './process';
export * from './proto-fields';
export * from './tracing';
