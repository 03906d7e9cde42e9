/**
 * The set-up of the container and deploy projects (test/containers/, test/deploy/): the real
 * backends, shared with the e2e project (started once per run, see global-setup.ts), and a
 * container engine with the service images.
 */
import globalSetup, { findContainers } from './global-setup';

type Globals = { __kbContainersReady?: Promise<void> };

export default async function containerSetup(): Promise<void> {
  await globalSetup();
  const globals = globalThis as Globals;
  globals.__kbContainersReady ??= findContainers((msg) => process.stdout.write(`[test backends] ${msg}\n`));
  await globals.__kbContainersReady;
}
