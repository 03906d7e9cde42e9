/** MCP session ids: signed statements of a session, honoured only for their holder and only as issued. */
import { IDENTITY } from './support/gateway';
import { sessionCodec } from '../src/http/mcp/session';

const codec = sessionCodec('a unit-test secret of thirty-two bytes');
const caller = { ...IDENTITY, token_id: 'tok-1' } as unknown as Parameters<typeof codec.read>[2];
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

test('when an id is read back as issued, then it states its session', async () => {
  const id = await codec.issue({ tenant: 'acme', holder: 'token:tok-1', client: 'claude' });
  await expect(codec.read(id, 'acme', caller)).resolves.toEqual({
    tenant: 'acme',
    holder: 'token:tok-1',
    client: 'claude',
  });
});

test('when the last character is changed only in bits base64url leaves spare, then the id is refused', async () => {
  const id = await codec.issue({ tenant: 'acme', holder: 'token:tok-1', client: 'claude' });
  // A 32-byte signature is 43 characters: the last one carries 4 bits of it and 2 spare bits.
  const last = B64URL.indexOf(id.at(-1)!);
  const variant = `${id.slice(0, -1)}${B64URL[last ^ 1]}`;
  expect(Buffer.from(variant.split('.')[2]!, 'base64url')).toEqual(Buffer.from(id.split('.')[2]!, 'base64url'));
  await expect(codec.read(variant, 'acme', caller)).resolves.toBeUndefined();
});

test('when the id was issued to another holder or tenant, then it is refused', async () => {
  const id = await codec.issue({ tenant: 'acme', holder: 'token:tok-2', client: 'claude' });
  await expect(codec.read(id, 'acme', caller)).resolves.toBeUndefined();
  const other = await codec.issue({ tenant: 'globex', holder: 'token:tok-1', client: 'claude' });
  await expect(codec.read(other, 'acme', caller)).resolves.toBeUndefined();
});

test('when SERVICE_AUTH_SECRET rotates, then ids of the old secret are read while it is accepted, not after', async () => {
  const OLD = 'a unit-test secret of thirty-two bytes';
  const NEW = 'the next unit-test secret, 32+ bytes long';
  const session = { tenant: 'acme', holder: 'token:tok-1', client: 'claude' };
  const oldId = await codec.issue(session);
  // Phase 2 of the rotation: signs with the new secret, still accepts the old one.
  const rotating = sessionCodec(NEW, OLD);
  await expect(rotating.read(oldId, 'acme', caller)).resolves.toEqual(session);
  const newId = await rotating.issue(session);
  await expect(sessionCodec(NEW).read(newId, 'acme', caller)).resolves.toEqual(session);
  await expect(codec.read(newId, 'acme', caller)).resolves.toBeUndefined(); // signed with the new one only
  // Phase 3: the old secret removed; its ids end (the client initializes again).
  await expect(sessionCodec(NEW).read(oldId, 'acme', caller)).resolves.toBeUndefined();
});
