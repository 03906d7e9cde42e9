/**
 * Calls to a back service the way a sibling of the test install makes them: with a caller
 * assertion signed with the run's secrets (test/support/global-setup.ts), for tests that talk
 * gRPC to a service directly.
 */
import * as grpc from '@grpc/grpc-js';
import { CALLER_ASSERTION_METADATA_KEY, callerSigner, type Caller } from '@kb/platform';

/** The test run's signer: the service key, and the system key for a caller without a tenant. */
export const testSigner = () =>
  callerSigner({ secret: process.env.SERVICE_AUTH_SECRET, systemSecret: process.env.SERVICE_SYSTEM_SECRET }, 'test');

/** Metadata carrying a valid assertion for `caller` on `method` ("/kb.catalog.v1.CatalogService/SearchProducts") of `audience`. */
export async function assertionMetadata(
  caller: Partial<Caller>,
  audience: string,
  method: string,
): Promise<grpc.Metadata> {
  const metadata = new grpc.Metadata();
  metadata.set(CALLER_ASSERTION_METADATA_KEY, await testSigner()({ caller, audience, method }));
  return metadata;
}
