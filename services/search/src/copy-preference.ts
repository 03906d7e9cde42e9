import { createHash } from 'node:crypto';

/**
 * The `preference` of a search: one request reads the same copy of each shard every time it is
 * asked, so it gets the same scores every time. On a replicated index the copies of a shard can
 * score a document a little differently (each copy builds its own segments and keeps its own
 * deleted documents; seen on the local three-node cluster: one product's vector score 0.26680296
 * on one copy, 0.266802928 on the other), and one question would get scores, and at a near tie an
 * order, that change from call to call (Elasticsearch's "bouncing results"). Hashed from what
 * defines the request, so different requests still spread over the copies; never starting with
 * `_` (Elasticsearch's own preference names). A copy that is gone is replaced by another.
 */
export function copyPreference(...parts: (string | ArrayBufferView)[]): string {
  const hash = createHash('sha256');
  for (const part of parts)
    hash
      .update(typeof part === 'string' ? part : new Uint8Array(part.buffer, part.byteOffset, part.byteLength))
      .update('\0');
  return `q${hash.digest('base64url').slice(0, 22)}`;
}
