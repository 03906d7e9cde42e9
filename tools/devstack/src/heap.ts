/** A backend's heap in MiB from the environment (a whole number from 128 to 65536), else `fallback`. */
export function heapSetting(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const mb = Number(value);
  if (!Number.isInteger(mb) || mb < 128 || mb > 65_536)
    throw new Error(`${name}: a heap in MiB, a whole number from 128 to 65536, not ${value}`);
  return mb;
}
