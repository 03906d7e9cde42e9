/**
 * Local embedder benchmark. Embeds N product-like texts in embed() calls of 1, 8 and 32 texts and
 * prints throughput, per-call latency, the longest event-loop stall and RSS; then exits.
 *
 *   EMBEDDING_MODEL_DIR=/path/with/model.onnx+tokenizer.json [BENCH_TEXTS=256] node tools/bench/dist/embedder.js
 *
 * Rows marked "padded" run whole calls as one padded batch (batchSize 32): faster, but with a
 * quantized model each vector then depends on its batch neighbours (see OnnxEmbedderOptions.batchSize).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { modelFilesIn, OnnxEmbedder } from '@kb/similarity';
import { EMBEDDER_WORDS } from './data';

const CALL_SIZES = [1, 8, 32];

function productTexts(count: number): string[] {
  const { kinds, traits, colours } = EMBEDDER_WORDS;
  return Array.from({ length: count }, (_, i) => {
    const extra = Array.from({ length: i % 6 }, (_, j) => traits[(i + j * 3) % traits.length]).join(', ');
    return (
      `Acme ${kinds[i % kinds.length]} model ${1000 + i} in ${colours[i % colours.length]}. ` +
      `${traits[i % traits.length]}, ${extra || 'classic design'}. Free shipping and 30-day returns.`
    );
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

async function measure(embedder: OnnxEmbedder, texts: string[], callSize: number, label: string): Promise<void> {
  const latencies: number[] = [];
  const stalls = monitorEventLoopDelay({ resolution: 1 });
  stalls.enable();
  const start = performance.now();
  for (let i = 0; i < texts.length; i += callSize) {
    const t0 = performance.now();
    await embedder.embed(texts.slice(i, i + callSize));
    latencies.push(performance.now() - t0);
  }
  const seconds = (performance.now() - start) / 1000;
  stalls.disable();
  latencies.sort((a, b) => a - b);
  console.log(
    [
      label.padEnd(8),
      String(callSize).padStart(5),
      (texts.length / seconds).toFixed(0).padStart(10),
      percentile(latencies, 50).toFixed(1).padStart(8),
      percentile(latencies, 95).toFixed(1).padStart(8),
      (stalls.max / 1e6).toFixed(0).padStart(10),
      mb(process.memoryUsage().rss).padStart(8),
    ].join(' '),
  );
}

async function main(): Promise<void> {
  const dir = process.env['EMBEDDING_MODEL_DIR'];
  if (!dir) throw new Error('set EMBEDDING_MODEL_DIR to a directory holding model.onnx and tokenizer.json');
  const texts = productTexts(Number(process.env['BENCH_TEXTS'] ?? 256));
  const options = { modelName: 'bench', dims: Number(process.env['EMBEDDING_DIMS'] ?? 384), ...modelFilesIn(dir) };
  console.log(`${texts.length} texts, rss before load ${mb(process.memoryUsage().rss)}`);

  const modes: Array<[string, OnnxEmbedder]> = [
    ['per-text', new OnnxEmbedder(options)],
    ['padded', new OnnxEmbedder({ ...options, batchSize: 32 })],
  ];
  console.log('mode      call  texts/s  p50 ms  p95 ms  stall ms      rss');
  for (const [label, embedder] of modes) {
    const t0 = performance.now();
    await embedder.ready();
    await embedder.embed(texts.slice(0, 32)); // warm the allocator for every sequence length we will see
    console.log(`(${label}: load + warm-up ${(performance.now() - t0).toFixed(0)} ms)`);
    for (const size of CALL_SIZES) await measure(embedder, texts, size, label);
    await embedder.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
