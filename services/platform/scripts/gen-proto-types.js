// Generates TypeScript types from the .proto files in protos/ (the single source of the
// service contracts) and from grpc-health-check's health.proto. Output is not committed.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../../..');
const protoDir = path.join(root, 'protos');
const healthProtoDir = path.dirname(require.resolve('grpc-health-check/proto/health/v1/health.proto'));
const outDir = path.join(__dirname, '..', 'src', 'generated');

function protoFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return protoFiles(p);
    return e.name.endsWith('.proto') ? [path.relative(protoDir, p)] : [];
  });
}

// Up to date when the output is newer than every .proto (and this script): then nothing is
// rewritten, so `tsc -b` sees no change and concurrent builds do not trip over each other.
const stamp = path.join(outDir, '.stamp');
const sources = [...protoFiles(protoDir).map((f) => path.join(protoDir, f)), __filename];
const newest = Math.max(...sources.map((f) => fs.statSync(f).mtimeMs));
if (fs.existsSync(stamp) && fs.statSync(stamp).mtimeMs >= newest) process.exit(0);

fs.rmSync(outDir, { recursive: true, force: true });
const bin = require.resolve('@grpc/proto-loader/build/bin/proto-loader-gen-types.js');
const common = ['--keepCase', '--longs=String', '--enums=String', '--defaults', '--oneofs', '--grpcLib=@grpc/grpc-js'];
execFileSync(process.execPath, [bin, ...common, '-I', protoDir, '-O', outDir, ...protoFiles(protoDir)], {
  stdio: 'inherit',
});
execFileSync(
  process.execPath,
  [bin, ...common, '-I', healthProtoDir, '-O', path.join(outDir, 'health'), 'health.proto'],
  { stdio: 'inherit' },
);

// One barrel per proto package (kb/<svc>/v1/index.ts) so services import
// `knowledgeV1.Category__Output` instead of deep paths into generated/.
function writeBarrels(dir) {
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && e.name.endsWith('.ts') && e.name !== 'index.ts');
  if (files.length && path.basename(path.dirname(dir)) !== 'generated') {
    const lines = files.map((f) => `export * from './${f.name.replace(/\.ts$/, '')}';`);
    fs.writeFileSync(path.join(dir, 'index.ts'), `${lines.join('\n')}\n`);
  }
  for (const e of entries) if (e.isDirectory()) writeBarrels(path.join(dir, e.name));
}
for (const pkg of ['kb', 'health']) writeBarrels(path.join(outDir, pkg));
fs.writeFileSync(stamp, new Date().toISOString());
