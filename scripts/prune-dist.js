#!/usr/bin/env node
// Removes compiled files whose TypeScript source is gone. `tsc -b` never deletes outputs, and
// Node resolves `./domain/entries` to a stale `entries.js` before a newer `entries/index.js`:
// after a source file is moved into a folder, an old checkout would run the old code.
'use strict';
const { existsSync, readdirSync, rmSync } = require('node:fs');
const { join, relative } = require('node:path');

const root = join(__dirname, '..');
const WORKSPACE_DIRS = ['services', 'tools'];
const OUTPUT = /(\.d)?\.(js|ts)(\.map)?$/;
let removed = 0;

function prune(dist, src) {
  for (const entry of readdirSync(dist, { withFileTypes: true })) {
    const path = join(dist, entry.name);
    if (entry.isDirectory()) {
      prune(path, join(src, entry.name));
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
      continue;
    }
    if (!OUTPUT.test(entry.name)) continue;
    const source = join(src, entry.name.replace(OUTPUT, '.ts'));
    if (!existsSync(source)) {
      rmSync(path);
      removed++;
    }
  }
}

for (const dir of WORKSPACE_DIRS) {
  if (!existsSync(join(root, dir))) continue;
  for (const pkg of readdirSync(join(root, dir))) {
    const dist = join(root, dir, pkg, 'dist');
    if (existsSync(dist)) prune(dist, join(root, dir, pkg, 'src'));
  }
}
if (removed > 0) {
  const where = WORKSPACE_DIRS.map((dir) => `${relative(process.cwd(), join(root, dir)) || '.'}/*/dist`).join(', ');
  process.stdout.write(`prune-dist: removed ${removed} compiled files without a source (${where})\n`);
}
