import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { embeddingUrlProblem, MAX_RESPONSE_BYTES, OpenAiEmbedder } from '../src/embedder/openai-embedder';
import { loadSimilarityConfig } from '../src/config';

describe('the OpenAI-compatible embedder endpoint', () => {
  test.each([
    ['https://embeddings.example/v1', undefined],
    ['http://127.0.0.1:8080/v1', undefined],
    ['http://localhost:8080', undefined],
    ['http://[::1]:8080', undefined],
    ['http://embeddings.internal:8080/v1', 'EMBEDDING_API_URL: must be https (http only for a loopback host)'],
    ['http://127.0.0.1.example/v1', 'EMBEDDING_API_URL: must be https (http only for a loopback host)'],
    ['ftp://embeddings.example', 'EMBEDDING_API_URL: must be https (http only for a loopback host)'],
    ['not a url', 'EMBEDDING_API_URL: not a URL'],
  ])('when the URL is %s, then it is %s', (url, problem) => {
    expect(embeddingUrlProblem(url)).toBe(problem);
  });

  test('when the service is configured with an http endpoint off this host, then it refuses to start without echoing it', () => {
    const env = {
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_API_URL: 'http://user:s3cret@embeddings.internal/v1',
      EMBEDDING_MODEL_NAME: 'm',
      EMBEDDING_DIMS: '3',
      ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
      SERVICE_AUTH_SECRET: 'a'.repeat(40),
      SERVICE_SYSTEM_SECRET: 'b'.repeat(40),
    };
    expect(() => loadSimilarityConfig(env)).toThrow(/EMBEDDING_API_URL: must be https/);
    expect(() => loadSimilarityConfig(env)).not.toThrow(/s3cret/);
  });

  describe('answers', () => {
    let server: Server;
    let url: string;
    let answer: (res: import('node:http').ServerResponse) => void;
    beforeAll(async () => {
      server = createServer((req, res) => {
        req.resume();
        req.on('end', () => answer(res));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    test('when the endpoint streams more than the bound, then the call fails and the body is not read to its end', async () => {
      let written = 0;
      answer = (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        const more = () => {
          while (written <= MAX_RESPONSE_BYTES * 2) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end();
        };
        res.on('close', () => undefined);
        more();
      };
      const embedder = new OpenAiEmbedder({ baseUrl: url, model: 'm', dims: 3 });
      await expect(embedder.embed(['x'])).rejects.toThrow(/sent a response of over \d+ bytes/);
      await embedder.close();
      expect(written).toBeLessThan(MAX_RESPONSE_BYTES * 2);
    });

    test('when the endpoint answers within the bound, then the vectors are read', async () => {
      answer = (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: [{ index: 0, embedding: [1, 0, 0] }] }));
      };
      const embedder = new OpenAiEmbedder({ baseUrl: url, model: 'm', dims: 3 });
      const [v] = await embedder.embed(['x']);
      expect(Array.from(v!)).toEqual([1, 0, 0]);
      await embedder.close();
    });
  });
});
