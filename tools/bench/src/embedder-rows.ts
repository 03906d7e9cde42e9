/** The embedder in the service (Embed over gRPC, uncached) against a bare onnxruntime-node session. */
import { catalogue } from './catalogue';
import type { Ctx } from './context';
import { timed } from './load';
import { BareSession } from './onnx';
import { textsOf } from './product-texts';
import { TENANT } from './stack';

/** The texts the catalog embeds for products (title plus description, properties, attributes), of products not loaded. */
export function unseenTexts(loaded: number): string[] {
  return catalogue(loaded + 86)
    .slice(loaded)
    .flatMap(textsOf)
    .slice(0, 256);
}

/** The embedder in the service (Embed over gRPC, uncached) against a bare session, on the same fresh texts. */
export async function embedderRows(ctx: Ctx, texts: string[]) {
  const { callerSigner, similarityProto, systemCaller, typedClient, CLIENT_OPTIONS } = await import('@kb/platform');
  const grpc = await import('@grpc/grpc-js');
  const client = typedClient(
    'similarity',
    new (similarityProto().kb.similarity.v1.SimilarityService)(
      ctx.stack.services!.grpcAddresses.similarity,
      grpc.credentials.createInsecure(),
      CLIENT_OPTIONS,
    ),
    120_000,
    callerSigner({ secret: ctx.stack.services!.secrets.service }, 'bench'),
  );
  const caller = systemCaller('catalog', TENANT);
  const bare = await BareSession.open(ctx.stack.model);
  const rows: { what: string; batch: number; textsPerSecond: number }[] = [];
  try {
    await bare.embed(texts.slice(0, 8), 8);
    for (const batch of [1, 32]) {
      const half = texts.length / 2;
      // Different halves per side and size, so the service's own caches cannot help (Embed is uncached anyway).
      const service = await timed(async () => {
        for (let i = 0; i < half; i += batch)
          await client.call('Embed', { caller, texts: texts.slice(i, Math.min(half, i + batch)) });
      });
      const raw = await timed(() => bare.embed(texts.slice(half), batch));
      rows.push({ what: 'embedder in the service (Embed RPC)', batch, textsPerSecond: half / (service.ms / 1000) });
      rows.push({ what: 'bare onnxruntime-node session', batch, textsPerSecond: half / (raw.ms / 1000) });
    }
    // Does a text's vector depend on its batch-mates? Same texts, batch 1 against batch 32.
    const one = await bare.embed(texts.slice(0, 32), 1);
    const many = await bare.embed(texts.slice(0, 32), 32);
    const worst = Math.min(...one.map((v, i) => v.reduce((s, x, d) => s + x * many[i]![d]!, 0)));
    const served = await client.call('Embed', { caller, texts: texts.slice(0, 32) });
    const servedVsOne = Math.min(
      ...served.vectors.map((e, i) => Array.from(e.values).reduce((s, x, d) => s + x * one[i]![d]!, 0)),
    );
    return { rows, batchedVsAlone: worst, serviceVsBareAlone: servedVsOne };
  } finally {
    client.close();
    await bare.close();
  }
}
