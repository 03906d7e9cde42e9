import { removeTestRun, type GivenBackends } from './given-backends';

type Globals = {
  __kbBackends?: { stop(): Promise<void> };
  __kbGiven?: { given: GivenBackends; run: string };
  __kbBackendsReady?: Promise<void>;
  __kbDockerApi?: { stop?: () => void };
  __kbContainersReady?: Promise<void>;
};

/** Stops what the set-up started; the projects that share the backends share this teardown, and it stops them once. */
export default async function globalTeardown(): Promise<void> {
  const globals = globalThis as Globals;
  const { __kbBackends: backends, __kbDockerApi: dockerApi, __kbGiven: given } = globals;
  delete globals.__kbBackends;
  delete globals.__kbGiven;
  delete globals.__kbBackendsReady;
  delete globals.__kbDockerApi;
  delete globals.__kbContainersReady;
  if (given) {
    const removed = await removeTestRun(given.given, given.run).catch((err: Error) => err);
    process.stdout.write(
      removed instanceof Error
        ? `[test backends] could not remove what this run made on the given servers: ${removed.message}\n`
        : `[test backends] removed what this run made on the given servers: ${removed.databases} databases, ${removed.indices} indices\n`,
    );
  }
  await backends?.stop();
  dockerApi?.stop?.();
}
