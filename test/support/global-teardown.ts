export default async function globalTeardown(): Promise<void> {
  const backends = (globalThis as { __kbBackends?: { stop(): Promise<void> } }).__kbBackends;
  await backends?.stop();
}
