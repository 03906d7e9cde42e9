// Five jest projects; `npx jest` runs them all, `--selectProjects <name>` one. `npm test` runs unit and
// e2e, then solo (one file at a time), then containers, then deploy, each in a run of its own (the
// container tests' drain timings need the CPU that other workers would take).
// --selectProjects (like --roots) takes every plain value after it, so the scripts follow it with
// --config: `npm run test:unit -- <path pattern>` then filters as expected.
//
// - unit: services/<svc>/test/ (and tools/<tool>/test/), beside the code they test. Starts nothing
//   and reads no backend address; it runs from the sources (every @kb/ package mapped to its src/), so it
//   needs the generated contract types (`npm run codegen`) but no build.
// - e2e: against the real backends, started once per run (test/support/global-setup.ts):
//   cross-service tests in test/<area>/ (entries, catalog, search, consistency, edge, resilience,
//   operations) and a package's own tests against real backends in services/<svc>/test/integration/.
// - solo: e2e files that start whole process stacks or hold a time bound (SOLO below), run one at a
//   time after the rest, each with the machine to itself: beside the e2e workers a 100,000-character
//   entry took over 60 s to embed, and a stack of nine processes started too slowly to be tested.
// - containers: the service images as containers (test/containers/).
// - deploy: the Helm chart rendered, validated and run under podman kube play (test/deploy/).
//
// e2e, containers and deploy share the backends: jest runs every project's set-up in one parent
// process, the set-up reuses backends already started, and the one teardown stops them.
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

// Packages with tests of their own: services/* and, once it exists, tools/*.
const packageRoots = ['services', 'tools']
  .filter((dir) => existsSync(path.join(__dirname, dir)))
  .map((dir) => `<rootDir>/${dir}`);

/**
 * `@kb/<name>` → that workspace's src/index.ts, for every workspace with one: unit tests run from
 * the sources, so a fresh clone needs no build (only the generated contract types).
 */
function sourcesOfWorkspaces() {
  const mapper = {};
  for (const dir of ['services', 'tools']) {
    if (!existsSync(path.join(__dirname, dir))) continue;
    for (const pkg of readdirSync(path.join(__dirname, dir))) {
      const manifest = path.join(__dirname, dir, pkg, 'package.json');
      if (!existsSync(manifest) || !existsSync(path.join(__dirname, dir, pkg, 'src/index.ts'))) continue;
      const { name } = JSON.parse(readFileSync(manifest, 'utf8'));
      mapper[`^${name}$`] = `<rootDir>/${dir}/${pkg}/src/index.ts`;
    }
  }
  return mapper;
}

const shared = {
  testEnvironment: 'node',
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
};

const withBackends = {
  ...shared,
  setupFiles: ['<rootDir>/test/support/main-realm-typed-arrays.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

/** e2e files run by the solo project (and not by e2e), one at a time. */
const SOLO = [
  'test/operations/npm-start.test.ts', // the whole `npm start` stack, demo data and all
  'test/replicas/processes.test.ts', // two replicas of every service as processes
  'test/search/content-bound.test.ts', // an entry at the content bound indexed within 60 s
  'test/resilience/es-node-loss.test.ts', // a 3-node Elasticsearch cluster of its own, one node killed under load
];

/** @type {import('jest').Config} */
module.exports = {
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 60_000,
  maxWorkers: 2,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      // A unit test starts nothing: one slower than this is reported (and is likely waiting on something).
      slowTestThreshold: 5,
      roots: packageRoots,
      testMatch: ['<rootDir>/{services,tools}/*/test/**/*.test.ts'],
      testPathIgnorePatterns: [...shared.testPathIgnorePatterns, '/test/integration/'],
      moduleNameMapper: sourcesOfWorkspaces(),
    },
    {
      ...withBackends,
      displayName: 'e2e',
      slowTestThreshold: 60,
      roots: ['<rootDir>/test', ...packageRoots],
      testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/{services,tools}/*/test/integration/**/*.test.ts'],
      testPathIgnorePatterns: [
        ...shared.testPathIgnorePatterns,
        '<rootDir>/test/(containers|deploy)/',
        ...SOLO.map((file) => `<rootDir>/${file}`),
      ],
    },
    {
      ...withBackends,
      displayName: 'solo',
      slowTestThreshold: 60,
      roots: ['<rootDir>/test'],
      testMatch: SOLO.map((file) => `<rootDir>/${file}`),
    },
    {
      ...withBackends,
      displayName: 'containers',
      roots: ['<rootDir>/test/containers'],
      testMatch: ['<rootDir>/test/containers/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/container-setup.ts',
    },
    {
      ...withBackends,
      displayName: 'deploy',
      roots: ['<rootDir>/test/deploy'],
      testMatch: ['<rootDir>/test/deploy/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/container-setup.ts',
    },
  ],
};
