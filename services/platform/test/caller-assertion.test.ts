import { SignJWT } from 'jose';
import { ConfigError, checkServiceAuthSecrets } from '../src/config';
import { AppError } from '../src/errors';
import { callerSigner, callerVerifier } from '../src/grpc/caller-assertion';

const secret = 'a unit-test service secret of 32+ bytes';
const systemSecret = 'a unit-test system secret of 32+ bytes';
const METHOD = '/kb.knowledge.v1.KnowledgeService/CreateCategory';
const caller = { tenant_id: 'acme', role: 'Admin', scopes: ['knowledge:write'], request_id: 'r1' };

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (err: unknown) => (err instanceof AppError ? `${err.kind}: ${err.message}` : String(err)),
  );

describe('caller assertion', () => {
  const verify = callerVerifier({ secret }, 'knowledge');
  const sign = callerSigner({ secret }, 'gateway');

  test('when the gateway signs for a service and method, then that service verifies it and reads the full caller', async () => {
    const token = await sign({ caller, audience: 'knowledge', method: METHOD });
    const verified = await verify(token, METHOD);
    expect(verified).toEqual({
      caller: { ...caller, user_id: '', workspace_ids: [], audit_source: '', client_id: '', token_id: '' },
      system: false,
      issuer: 'gateway',
    });
  });

  test.each([
    ['no assertion', async () => undefined, 'unauthenticated: No caller assertion on the call'],
    [
      'another key',
      () =>
        callerSigner(
          { secret: 'another secret of at least 32 bytes!!' },
          'x',
        )({ caller, audience: 'knowledge', method: METHOD }),
      'unauthenticated: The caller assertion is not valid',
    ],
    [
      'another service',
      () => sign({ caller, audience: 'catalog', method: METHOD }),
      'unauthenticated: The caller assertion is for another service',
    ],
    [
      'another method',
      () => sign({ caller, audience: 'knowledge', method: '/kb.knowledge.v1.KnowledgeService/ListCategories' }),
      'unauthenticated: The caller assertion is for another method',
    ],
    [
      'the system key, which this service does not hold',
      () => callerSigner({ systemSecret }, 'admin')({ caller, audience: 'knowledge', method: METHOD }),
      'unauthenticated: The caller assertion is not valid',
    ],
    [
      'a lifetime of an hour',
      () =>
        new SignJWT({ rpc: METHOD, caller })
          .setProtectedHeader({ alg: 'HS256', typ: 'kb-caller+jwt', kid: 'service' })
          .setIssuer('knowledge-service')
          .setSubject('gateway')
          .setAudience('knowledge')
          .setIssuedAt(Math.floor(Date.now() / 1000) - 120)
          .setExpirationTime('1h')
          .sign(new TextEncoder().encode(secret)),
      // jose counts an iat older than the longest lifetime as expired, whatever exp says.
      'unauthenticated: The caller assertion has expired',
    ],
    [
      'a caller claim of the wrong shape',
      () =>
        new SignJWT({ rpc: METHOD, caller: { ...caller, scopes: 'knowledge:admin' } })
          .setProtectedHeader({ alg: 'HS256', typ: 'kb-caller+jwt', kid: 'service' })
          .setIssuer('knowledge-service')
          .setSubject('gateway')
          .setAudience('knowledge')
          .setIssuedAt()
          .setExpirationTime('60s')
          .sign(new TextEncoder().encode(secret)),
      'unauthenticated: The caller assertion is not valid',
    ],
    [
      'a tampered payload',
      async () => tamper(await sign({ caller, audience: 'knowledge', method: METHOD })),
      'unauthenticated: The caller assertion is not valid',
    ],
  ])('when the assertion has %s, then it is refused as UNAUTHENTICATED', async (_what, token, expected) => {
    expect(await refusal(verify(await token(), METHOD))).toBe(expected);
  });

  test('when a tenantless caller is signed where the system key is held, then the verifier says system', async () => {
    const both = callerVerifier({ secret, systemSecret }, 'similarity');
    const token = await callerSigner(
      { secret, systemSecret },
      'admin',
    )({
      caller: { tenant_id: '' },
      audience: 'similarity',
      method: '/kb.similarity.v1.SimilarityService/BeginReindex',
    });
    expect((await both(token, '/kb.similarity.v1.SimilarityService/BeginReindex')).system).toBe(true);
  });

  test('when a secret is short or the two secrets are the same, then the configuration names the variable, never the value', () => {
    const check = (config: Parameters<typeof checkServiceAuthSecrets>[0]) => {
      try {
        checkServiceAuthSecrets(config);
        return 'ok';
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
    };
    expect(check({ SERVICE_AUTH_SECRET: 'short-secret-value' })).toBe(
      'invalid configuration: SERVICE_AUTH_SECRET must be at least 32 bytes (it is 18)',
    );
    expect(check({ SERVICE_AUTH_SECRET: secret, SERVICE_SYSTEM_SECRET: secret })).toBe(
      'invalid configuration: SERVICE_SYSTEM_SECRET must differ from SERVICE_AUTH_SECRET',
    );
    expect(check({ SERVICE_AUTH_SECRET: secret, SERVICE_SYSTEM_SECRET: systemSecret })).toBe('ok');
  });
});

describe('caller assertion: the accepted secret of a rotation, and the signed deadline', () => {
  const next = 'the next service secret, 32+ bytes long';
  const assertion = (keys: { secret: string }) =>
    callerSigner(keys, 'gateway')({ caller, audience: 'knowledge', method: METHOD });

  test('when SERVICE_AUTH_SECRET_ACCEPTED is set, then assertions signed with either secret are accepted, others not', async () => {
    const verify = callerVerifier({ secret, acceptedSecret: next }, 'knowledge');
    expect((await verify(await assertion({ secret }), METHOD)).issuer).toBe('gateway');
    expect((await verify(await assertion({ secret: next }), METHOD)).issuer).toBe('gateway');
    expect(await refusal(verify(await assertion({ secret: 'a third secret, also 32+ bytes long' }), METHOD))).toBe(
      'unauthenticated: The caller assertion is not valid',
    );
    // A token signed with the accepted secret is still held to every other rule.
    expect(
      await refusal(
        verify(await callerSigner({ secret: next }, 'g')({ caller, audience: 'catalog', method: METHOD }), METHOD),
      ),
    ).toBe('unauthenticated: The caller assertion is for another service');
  });

  test('when a signer is given an accepted secret, then it still signs with SERVICE_AUTH_SECRET only', async () => {
    const token = await callerSigner(
      { secret, acceptedSecret: next },
      'gateway',
    )({
      caller,
      audience: 'knowledge',
      method: METHOD,
    });
    expect((await callerVerifier({ secret }, 'knowledge')(token, METHOD)).issuer).toBe('gateway');
    expect(await refusal(callerVerifier({ secret: next }, 'knowledge')(token, METHOD))).toBe(
      'unauthenticated: The caller assertion is not valid',
    );
  });

  test("when the signer is given the call's deadline, then it travels signed and the verifier returns it", async () => {
    const deadline = Date.now() + 1234;
    const sign = callerSigner({ secret }, 'gateway');
    const verify = callerVerifier({ secret }, 'knowledge');
    const token = await sign({ caller, audience: 'knowledge', method: METHOD, deadline });
    expect((await verify(token, METHOD)).deadline).toBe(deadline);
    expect(
      (await verify(await sign({ caller, audience: 'knowledge', method: METHOD }), METHOD)).deadline,
    ).toBeUndefined();
  });

  test('when SERVICE_AUTH_SECRET_ACCEPTED is short or equals the system secret, then the configuration names it', () => {
    const message = (config: Parameters<typeof checkServiceAuthSecrets>[0]) => {
      try {
        checkServiceAuthSecrets(config);
        return 'ok';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(message({ SERVICE_AUTH_SECRET: secret, SERVICE_AUTH_SECRET_ACCEPTED: 'short' })).toBe(
      'invalid configuration: SERVICE_AUTH_SECRET_ACCEPTED must be at least 32 bytes (it is 5)',
    );
    expect(
      message({
        SERVICE_AUTH_SECRET: secret,
        SERVICE_AUTH_SECRET_ACCEPTED: systemSecret,
        SERVICE_SYSTEM_SECRET: systemSecret,
      }),
    ).toBe('invalid configuration: SERVICE_SYSTEM_SECRET must differ from SERVICE_AUTH_SECRET_ACCEPTED');
    expect(message({ SERVICE_AUTH_SECRET: secret, SERVICE_AUTH_SECRET_ACCEPTED: next })).toBe('ok');
  });
});

/** The payload with one character changed (the signature no longer matches). */
function tamper(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  claims.caller.tenant_id = 'globex';
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}
