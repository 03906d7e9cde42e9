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
