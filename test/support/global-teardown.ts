type Globals = {
  __kbBackends?: { stop(): Promise<void> };
  __kbBackendsReady?: Promise<void>;
  __kbDockerApi?: { stop?: () => void };
  __kbContainersReady?: Promise<void>;
};

/** Stops what the set-up started; the projects that share the backends share this teardown, and it stops them once. */
export default async function globalTeardown(): Promise<void> {
  const globals = globalThis as Globals;
  const { __kbBackends: backends, __kbDockerApi: dockerApi } = globals;
  delete globals.__kbBackends;
  delete globals.__kbBackendsReady;
  delete globals.__kbDockerApi;
  delete globals.__kbContainersReady;
  await backends?.stop();
  dockerApi?.stop?.();
}
