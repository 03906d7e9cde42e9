/**
 * The `*_GRPC_ADDR` settings: the forms a caller may point at a service's pods with, and the
 * grpc-js target each becomes (grpc/balancing.ts).
 */
import { Type } from '@sinclair/typebox';
import { ConfigError, GrpcAddress, loadConfig } from '../src/config';
import { grpcTarget } from '../src/grpc/balancing';

const schema = Type.Object({ SIMILARITY_GRPC_ADDR: GrpcAddress('127.0.0.1:50053') });
const load = (value: string) => loadConfig(schema, { SIMILARITY_GRPC_ADDR: value }).SIMILARITY_GRPC_ADDR;

describe('a gRPC address setting', () => {
  it.each([
    ['host:port', 'acme-similarity:50053', 'acme-similarity:50053'],
    ['an IPv4 address', '127.0.0.1:50053', '127.0.0.1:50053'],
    ['a headless Service', 'dns:///acme-similarity-headless:50053', 'dns:///acme-similarity-headless:50053'],
    [
      'a headless Service by its full name',
      'dns:///acme-similarity-headless.kb.svc.cluster.local:50053',
      'dns:///acme-similarity-headless.kb.svc.cluster.local:50053',
    ],
    ['a static list of IPv4 addresses', '127.0.0.1:5001,127.0.0.1:5002', 'ipv4:127.0.0.1:5001,127.0.0.1:5002'],
    ['a static list of IPv6 addresses', '[::1]:5001,[::1]:5002', 'ipv6:[::1]:5001,[::1]:5002'],
  ])('when it is %s, then it is accepted and the client targets it', (_what, value, target) => {
    expect(load(value)).toBe(value);
    expect(grpcTarget(load(value))).toBe(target);
  });

  it('when it is not set, then the default applies', () => {
    expect(loadConfig(schema, {}).SIMILARITY_GRPC_ADDR).toBe('127.0.0.1:50053');
  });

  it.each([
    ['no port', 'acme-similarity'],
    ['a port that is not a number', 'acme-similarity:http'],
    ['a list of host names (no resolver takes one)', 'a-host:5001,b-host:5002'],
    ['a list with an empty entry', '127.0.0.1:5001,'],
    ['spaces in a list', '127.0.0.1:5001, 127.0.0.1:5002'],
    ['another scheme', 'http://acme-similarity:50053'],
    ['dns: without the empty authority', 'dns:acme-similarity:50053'],
    ['whitespace', 'acme similarity:50053'],
  ])('when it has %s, then the start fails naming the variable, never the value', (_what, value) => {
    let thrown: unknown;
    try {
      load(value);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const message = (thrown as Error).message;
    expect(message).toBe(
      'invalid configuration: SIMILARITY_GRPC_ADDR must be host:port, dns:///host:port, or a comma-separated list of ip:port (value not shown)',
    );
  });
});
