import { createServer } from 'node:net';
import { freePort, freePorts } from '../src/ports';

/** Whether something can listen on `port` on 127.0.0.1 now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('freePorts', () => {
  test('gives as many distinct ports as asked, each free to listen on once it returns', async () => {
    const ports = await freePorts(8);
    expect(ports).toHaveLength(8);
    expect(new Set(ports).size).toBe(8);
    for (const port of ports) {
      expect(port).toBeGreaterThan(0);
      expect(await canListen(port)).toBe(true);
    }
  });

  test('never gives a port it is told to avoid, even one the OS offers again', async () => {
    // Ask many times, avoiding everything given so far: any repeat would be a port to avoid.
    const avoid: number[] = [];
    for (let round = 0; round < 5; round++) {
      const ports = await freePorts(4, avoid);
      for (const port of ports) expect(avoid).not.toContain(port);
      avoid.push(...ports);
    }
    expect(new Set(avoid).size).toBe(20);
  });

  test('freePort gives one free port', async () => {
    const port = await freePort();
    expect(await canListen(port)).toBe(true);
  });
});
