type Globals = { __kbBackends?: { stop(): Promise<void> }; __kbDockerApi?: { stop?: () => void } };

export default async function globalTeardown(): Promise<void> {
  const globals = globalThis as Globals;
  await globals.__kbBackends?.stop();
  globals.__kbDockerApi?.stop?.();
}
