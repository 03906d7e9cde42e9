// Lays out what the last, FROM-scratch stage of docker/Dockerfile copies: no shell, no package
// manager, only what `node` and the service load. Runs inside the build stages, on whichever
// base they use (the official slim Node image or docker/node-base.sh's), so both give the same
// runtime image.
//
//   node docker/rootfs.js system <dest>            node, the shared libraries it and
//                                                   onnxruntime-node load, CA bundle, zoneinfo,
//                                                   /etc/passwd with the user `node` (1000), /tmp
//   node docker/rootfs.js app <service> <appdir>   trims <appdir> (a production install of one
//                                                   service), writes its entry point, bakes the
//                                                   embedding model into the similarity image
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [command, ...args] = process.argv.slice(2);

// Libraries are dereferenced (the loader looks them up by the names it was given, not their
// targets); a tree such as zoneinfo keeps its own relative links.
function copyInto(dest, file, { dereference = true } = {}) {
  const target = path.join(dest, file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.cpSync(file, target, {
    recursive: true,
    preserveTimestamps: true,
    ...(dereference ? { dereference } : { verbatimSymlinks: true }),
  });
}

function system(dest) {
  // Loading onnxruntime-node's binding makes the loader map every library it needs, so the
  // list below is what this platform actually uses, not a guess per architecture.
  try {
    require(require.resolve('onnxruntime-node', { paths: [process.cwd()] }));
  } catch (err) {
    throw new Error(`rootfs: onnxruntime-node must be installed where this runs (${err.message})`);
  }
  const libraries = process.report
    .getReport()
    .sharedObjects.filter((so) => so.startsWith('/') && !so.includes('/node_modules/'));
  for (const lib of libraries) copyInto(dest, lib);
  fs.mkdirSync(path.join(dest, 'usr/local/bin'), { recursive: true });
  fs.copyFileSync(process.execPath, path.join(dest, 'usr/local/bin/node'));
  fs.chmodSync(path.join(dest, 'usr/local/bin/node'), 0o755);
  copyInto(dest, '/etc/ssl/certs/ca-certificates.crt');
  copyInto(dest, '/usr/share/zoneinfo', { dereference: false });
  fs.writeFileSync(
    path.join(dest, 'etc/passwd'),
    'root:x:0:0:root:/root:/sbin/nologin\nnode:x:1000:1000::/home/node:/sbin/nologin\n',
  );
  fs.writeFileSync(path.join(dest, 'etc/group'), 'root:x:0:\nnode:x:1000:\n');
  fs.writeFileSync(path.join(dest, 'etc/nsswitch.conf'), 'passwd: files\ngroup: files\nhosts: files dns\n');
  fs.writeFileSync(path.join(dest, 'etc/hosts'), '127.0.0.1 localhost\n::1 localhost\n');
  for (const dir of ['tmp', 'home/node']) fs.mkdirSync(path.join(dest, dir), { recursive: true });
  fs.chmodSync(path.join(dest, 'tmp'), 0o1777);
  fs.chownSync(path.join(dest, 'home/node'), 1000, 1000);
  console.log(`rootfs: node ${process.version} and ${libraries.length} libraries: ${libraries.join(' ')}`);
}

const SERVICES = ['gateway', 'knowledge', 'catalog', 'similarity'];
/** The shared libraries every service image carries (services/README.md). */
const LIBRARIES = ['platform', 'text', 'rules', 'search', 'indexing', 'mongo'];

function app(service, appDir) {
  if (!SERVICES.includes(service))
    throw new Error(`rootfs: SERVICE must be one of ${SERVICES.join(', ')} (got "${service ?? ''}")`);
  const ort = path.join(appDir, 'node_modules/onnxruntime-node/bin');
  if (fs.existsSync(ort)) {
    // The package ships binaries for every platform (~290 MB); the image runs on one.
    for (const napi of fs.readdirSync(ort)) {
      for (const platform of fs.readdirSync(path.join(ort, napi))) {
        for (const arch of fs.readdirSync(path.join(ort, napi, platform))) {
          if (platform !== process.platform || arch !== process.arch)
            fs.rmSync(path.join(ort, napi, platform, arch), { recursive: true });
        }
      }
    }
  }
  const tinyld = path.join(appDir, 'node_modules/tinyld');
  if (fs.existsSync(tinyld)) {
    // Question language detection loads the light model only (services/text text-analysis.ts);
    // the package also ships its normal and heavy models, a playground and images (~12 MB).
    const keep = new Set(['package.json', 'license', 'dist/tinyld.light.node.js']);
    for (const file of fs.readdirSync(tinyld, { recursive: true })) {
      const full = path.join(tinyld, file);
      if (!keep.has(file) && fs.statSync(full, { throwIfNoEntry: false })?.isFile()) fs.rmSync(full);
    }
  }
  // The manifest stage carries the tools' package.json files only because `npm ci` checks every
  // workspace against the lock. Of tools/, only the admin CLI ships, in the knowledge image alone:
  // the chart's bootstrap Job and an operator's one-off pod run it as `node /app/admin.js …`
  // (the image has no shell). It needs the catalog's admin operations too.
  const withAdmin = service === 'knowledge';
  for (const tool of fs.readdirSync(path.join(appDir, 'tools'))) {
    if (!(withAdmin && tool === 'admin')) fs.rmSync(path.join(appDir, 'tools', tool), { recursive: true, force: true });
  }
  if (withAdmin) {
    fs.cpSync('/tmp/admin/tools/admin/dist', path.join(appDir, 'tools/admin/dist'), { recursive: true });
    fs.cpSync('/tmp/admin/services/catalog/dist', path.join(appDir, 'services/catalog/dist'), { recursive: true });
  } else {
    fs.rmSync(path.join(appDir, 'tools'), { recursive: true, force: true });
  }
  // Source maps and declarations of the project's own code are not read at run time.
  const packages = [
    ...LIBRARIES.map((lib) => `services/${lib}`),
    `services/${service}`,
    ...(withAdmin ? ['services/catalog', 'tools/admin'] : []),
  ];
  for (const pkg of packages) {
    for (const file of fs.readdirSync(path.join(appDir, pkg, 'dist'), { recursive: true })) {
      if (/\.(d\.ts|d\.ts\.map|tsbuildinfo)$/.test(file)) fs.rmSync(path.join(appDir, pkg, 'dist', file));
    }
  }
  fs.writeFileSync(path.join(appDir, 'main.js'), `'use strict';\nrequire('./services/${service}/dist/main.js');\n`);
  if (withAdmin)
    fs.writeFileSync(path.join(appDir, 'admin.js'), `'use strict';\nrequire('./tools/admin/dist/main.js');\n`);
  if (service === 'similarity') {
    const staged = path.resolve(__dirname, 'model');
    const files = ['model.onnx', 'tokenizer.json'];
    const missing = files.filter((f) => !fs.existsSync(path.join(staged, f)));
    if (missing.length) {
      throw new Error(
        `rootfs: the similarity image bakes in the embedding model, and docker/model/ lacks ${missing.join(', ')}. ` +
          'Run `npm run images` (it stages the model), or copy model.onnx and tokenizer.json there (see docker/README.md).',
      );
    }
    fs.mkdirSync(path.join(appDir, 'model'), { recursive: true });
    for (const f of files) fs.copyFileSync(path.join(staged, f), path.join(appDir, 'model', f));
  }
  console.log(`rootfs: ${service} laid out in ${appDir}`);
}

try {
  if (command === 'system') system(args[0] ?? '/rootfs');
  else if (command === 'app') app(args[0], args[1] ?? '/app');
  else throw new Error('usage: rootfs.js system <dest> | app <service> <appdir>');
} catch (err) {
  console.error(err.message);
  process.exit(2);
}
