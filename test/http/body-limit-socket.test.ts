import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

/**
 * The 1 MiB body limit over a real socket (docs/design/surfaces.md): a declared length is judged from the
 * header, a chunked body by counting — and nothing is created either way.
 */
describe('the body limit over HTTP', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const count = async (): Promise<number> => {
    const r = await fetch(`${server.url}/api/v1/sessions?status=&limit=200`, { headers: { authorization: `Bearer ${server.fleetKey}` } });
    return ((await r.json()) as { sessions: unknown[] }).sessions.length;
  };

  it('refuses a declared length over 1 MiB and a chunked body over 1 MiB with 413; a small chunked body works', async () => {
    const before = await count();
    const big = JSON.stringify({ title: 'too big', custom_metadata: { pad: 'x'.repeat(1024 * 1024 + 10) } });
    const declared = await fetch(`${server.url}/api/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.fleetKey}`, 'content-type': 'application/json' },
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { error: string }).error).toBe('body-too-large');

    const chunked = (text: string) =>
      fetch(`${server.url}/api/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.fleetKey}`, 'content-type': 'application/json' },
        body: new ReadableStream({
          start(c) {
            const bytes = new TextEncoder().encode(text);
            for (let i = 0; i < bytes.length; i += 65536) c.enqueue(bytes.subarray(i, i + 65536));
            c.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
    const streamed = await chunked(big);
    expect(streamed.status).toBe(413);
    expect(await count()).toBe(before);

    const small = await chunked(JSON.stringify({ title: 'streamed but small' }));
    expect(small.status).toBe(201);
    expect(await count()).toBe(before + 1);
  });
});
