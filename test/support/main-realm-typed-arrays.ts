/**
 * Loaded by jest (setupFiles) before every test file, so before anything loads onnxruntime-node.
 *
 * Jest runs each test file in its own realm (a vm context) with its own typed-array classes, but
 * onnxruntime-node's native code creates output tensors with the main realm's Float32Array, and
 * onnxruntime-common (loaded inside the test realm) rejects them with an `instanceof` check:
 * "A float32 tensor's data must be type of function Float32Array()" (microsoft/onnxruntime#16622).
 * onnxruntime-common captures the classes when it loads, so swap them in before that. Outside Jest
 * there is only one realm and none of this is needed.
 */
import { runInThisContext } from 'node:vm';

const names = [
  'Int8Array',
  'Uint8Array',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
] as const;

for (const name of names) {
  const mainRealm = runInThisContext(name) as unknown;
  if (mainRealm !== globalThis[name]) Object.assign(globalThis, { [name]: mainRealm });
}
