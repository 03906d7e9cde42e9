/**
 * A workaround for a grpc-js client bug, applied once when @kb/platform's gRPC client is loaded.
 *
 * grpc/grpc-node#3068 (open, grpc-js 1.14.x): after a graceful GOAWAY (a server draining on
 * SIGTERM, or closing a connection at its maximum age, startGrpcServer) the client's next
 * keepalive ping is sent on the closing HTTP/2 session; Node refuses it ("Ping returned false"),
 * and grpc-js treats that as a lost connection and ends every call still running there with
 * UNAVAILABLE: the very calls the GOAWAY let finish. With keepalive every 10 s and connections
 * closed every minute, any call longer than the time to the next ping could be cut (a write
 * then answers 503 although it may have been done).
 *
 * The fix is the one the issue proposes: no keepalive ping on a session that is closing (it
 * takes no new calls; its calls end on their own, by the server's grace or their deadline).
 * It patches grpc-js's internal transport class through its public connector's prototype, so it
 * checks what it relies on and, if a grpc-js upgrade changed it, leaves grpc-js alone and says
 * so (`platform/test/balancing.test.ts` then fails, and this file can go once upstream is fixed).
 */
import { createLogger } from '../logging';

interface TransportPrototype {
  canSendPing(this: { session: { closed: boolean } }): boolean;
}

const PATCHED = Symbol.for('kb.grpcJsPingAfterGoaway');

export function applyGrpcJsFixes(): void {
  let connector: { prototype: { createSession?: (...args: unknown[]) => Promise<unknown> } } | undefined;
  try {
    connector = (require('@grpc/grpc-js/build/src/transport') as { Http2SubchannelConnector?: typeof connector })
      .Http2SubchannelConnector;
  } catch {
    connector = undefined;
  }
  const createSession = connector?.prototype.createSession;
  if (!connector || typeof createSession !== 'function') {
    createLogger('platform', 'warn').warn(
      'grpc-js internals changed: the workaround for grpc/grpc-node#3068 (keepalive ping after GOAWAY) is not applied',
    );
    return;
  }
  if ((connector.prototype as Record<symbol, unknown>)[PATCHED]) return;
  (connector.prototype as Record<symbol, unknown>)[PATCHED] = true;
  connector.prototype.createSession = async function (this: unknown, ...args: unknown[]) {
    const transport = await createSession.apply(this, args);
    const proto = Object.getPrototypeOf(transport) as TransportPrototype & Record<symbol, unknown>;
    if (!proto[PATCHED] && typeof proto.canSendPing === 'function') {
      const canSendPing = proto.canSendPing;
      proto.canSendPing = function () {
        return !this.session.closed && canSendPing.call(this);
      };
      proto[PATCHED] = true;
    }
    return transport;
  };
}
