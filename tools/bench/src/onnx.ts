/**
 * A bare onnxruntime-node session on the service's model: the tokenizer, one run, mean pooling
 * and normalisation, nothing else. What the service's embedder is compared against (and, with
 * `cls` pooling, how models pooled otherwise are tried: tools/eval's models.ts).
 */
import { readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceSession, Tensor } from 'onnxruntime-node';

/** How a text's vector is made of its tokens' hidden states, as the model card says. */
export type Pooling = 'mean' | 'cls';

export class BareSession {
  private constructor(
    private readonly session: InferenceSession,
    private readonly tokenizer: Tokenizer,
    private readonly maxTokens: number,
    private readonly pooling: Pooling,
  ) {}

  static async open(
    model: { modelPath: string; tokenizerPath: string },
    maxTokens = 256,
    pooling: Pooling = 'mean',
  ): Promise<BareSession> {
    const tokenizer = new Tokenizer(JSON.parse(readFileSync(model.tokenizerPath, 'utf8')) as object, {});
    const session = await InferenceSession.create(model.modelPath, {
      intraOpNumThreads: 2,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    return new BareSession(session, tokenizer, maxTokens, pooling);
  }

  /** One vector per text, `batch` texts per run (padded to the longest of the run). */
  async embed(texts: string[], batch: number): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batch) out.push(...(await this.run(texts.slice(i, i + batch))));
    return out;
  }

  private async run(texts: string[]): Promise<Float32Array[]> {
    const encoded = texts.map((t) => {
      const ids = this.tokenizer.encode(t).ids;
      return ids.length <= this.maxTokens ? ids : [...ids.slice(0, this.maxTokens - 1), ids[ids.length - 1]!];
    });
    const seq = Math.max(...encoded.map((e) => e.length));
    const ids = new BigInt64Array(texts.length * seq);
    const mask = new BigInt64Array(texts.length * seq);
    encoded.forEach((e, b) => e.forEach((id, t) => ((ids[b * seq + t] = BigInt(id)), (mask[b * seq + t] = 1n))));
    const shape = [texts.length, seq];
    const feeds: Record<string, Tensor> = {
      input_ids: new Tensor('int64', ids, shape),
      attention_mask: new Tensor('int64', mask, shape),
    };
    if (this.session.inputNames.includes('token_type_ids'))
      feeds.token_type_ids = new Tensor('int64', new BigInt64Array(texts.length * seq), shape);
    const hidden = (await this.session.run(feeds)).last_hidden_state!;
    const width = hidden.dims[2]!;
    const data = hidden.data as Float32Array;
    return encoded.map((e, b) => {
      const v = new Float32Array(width);
      // mean: every real token; cls: the first ([CLS]) only. Normalised either way, so no division.
      const tokens = this.pooling === 'cls' ? 1 : e.length;
      for (let t = 0; t < tokens; t++) for (let d = 0; d < width; d++) v[d]! += data[(b * seq + t) * width + d]!;
      let n = 0;
      for (let d = 0; d < width; d++) n += v[d]! * v[d]!;
      n = Math.sqrt(n);
      for (let d = 0; d < width; d++) v[d]! /= n;
      return v;
    });
  }

  close(): Promise<void> {
    return this.session.release();
  }
}
