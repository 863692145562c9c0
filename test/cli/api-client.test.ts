import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, ApiError } from '../../src/cli/api-client.js';

/** A real HTTP server whose answers each test picks by path. */
let server: Server;
let baseUrl: string;
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string; socket: number }[] = [];
const sockets = new WeakMap<object, number>();
let nextSocket = 0;

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  if (!sockets.has(req.socket)) sockets.set(req.socket, ++nextSocket);
  seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, socket: sockets.get(req.socket)! });
  if (req.url === '/ok') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echo: body, ü: 'ß' }));
  if (req.url === '/refused')
    return void res.writeHead(409, { 'content-type': 'application/json' }).end('{"error":"reply-closed","message":"That conversation is closed."}');
  if (req.url === '/not-json') return void res.writeHead(502, 'Bad Gateway').end('<html>proxy</html>');
  if (req.url === '/slow-body') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"partial":');
    return; // the rest never comes
  }
  if (req.url === '/cut') {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"partial":');
    setTimeout(() => req.socket.destroy(), 20);
    return;
  }
  if (req.url === '/moved') return void res.writeHead(308, { location: 'https://warrant.example/moved' }).end();
  // '/silent': never answers
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => answer(req, res, body));
  });
  // a server that keeps idle connections a minute (as `warrant serve` does): only the client's own idle limit closes them sooner
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((ok) => server.close(() => ok()));
});

describe('ApiClient (node:http)', () => {
  it('sends the JSON body with its length, the bearer token and the client header; reads the whole UTF-8 answer; reuses the connection', async () => {
    const client = new ApiClient({ baseUrl, token: 'tok-1' });
    seen.length = 0;
    const first = await client.json<{ echo: string; ü: string }>('POST', '/ok', { text: 'héllo 👋' });
    const second = await client.json<{ echo: string }>('POST', '/ok', { n: 2 });
    expect(first).toEqual({ echo: JSON.stringify({ text: 'héllo 👋' }), ü: 'ß' });
    expect(second.echo).toBe('{"n":2}');
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.headers.authorization).toBe('Bearer tok-1');
    expect(seen[0]!.headers['x-warrant-client']).toBe('cli');
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(Number(seen[0]!.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify({ text: 'héllo 👋' })));
    expect(seen[1]!.socket).toBe(seen[0]!.socket); // keep-alive
  });

  it('an idle connection is closed by the client after 4 s (before a server or proxy could drop it under a request)', async () => {
    const client = new ApiClient({ baseUrl, token: null });
    seen.length = 0;
    await client.text('GET', '/ok');
    await client.text('GET', '/ok');
    await new Promise((r) => setTimeout(r, 4_500));
    await client.text('GET', '/ok');
    expect(seen[1]!.socket).toBe(seen[0]!.socket);
    expect(seen[2]!.socket).not.toBe(seen[0]!.socket);
  });

  it('a GET carries no body and no content type; no token, no authorization', async () => {
    seen.length = 0;
    expect(await new ApiClient({ baseUrl, token: null }).text('GET', '/ok')).toContain('"echo":""');
    expect(seen[0]!.headers['content-type']).toBeUndefined();
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it('a refusal becomes an ApiError with its status, token, sentence and body; a non-JSON error keeps the status line', async () => {
    const client = new ApiClient({ baseUrl, token: 't' });
    const refused = await client.json('POST', '/refused', {}).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 409, token: 'reply-closed', message: 'That conversation is closed.', body: { error: 'reply-closed' } });
    const proxy = await client.json('GET', '/not-json').catch((e: unknown) => e);
    expect(proxy).toMatchObject({ status: 502, token: 'http-502', message: 'Bad Gateway' });
  });

  it('a redirect is not followed (a POST is never re-sent elsewhere): server-redirected naming where it points', async () => {
    const error = await new ApiClient({ baseUrl, token: 't' }).json('POST', '/moved', { a: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 308, token: 'server-redirected' });
    expect((error as Error).message).toContain('https://warrant.example/moved');
  });

  it('an https URL goes through TLS (here against a plain-HTTP server: a TLS failure, not a hang or a crash)', async () => {
    const error = await new ApiClient({ baseUrl: baseUrl.replace('http:', 'https:'), token: null, timeoutMs: 5_000 })
      .json('GET', '/ok')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0, token: 'server-unreachable' });
  });

  it('no server: server-unreachable naming the URL and the cause', async () => {
    const idle = createServer();
    await new Promise<void>((ok) => idle.listen(0, '127.0.0.1', ok));
    const port = (idle.address() as AddressInfo).port;
    await new Promise<void>((ok) => idle.close(() => ok()));
    const error = await new ApiClient({ baseUrl: `http://127.0.0.1:${port}`, token: null }).json('GET', '/ok').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0, token: 'server-unreachable' });
    expect((error as Error).message).toContain(`http://127.0.0.1:${port}`);
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('a connection cut mid-answer (no timeout set) fails as unreachable instead of waiting forever', async () => {
    const error = await new ApiClient({ baseUrl, token: null }).json('GET', '/cut').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0, token: 'server-unreachable' });
  });

  it('timeoutMs bounds the whole answer: headers that never come, and a body that stops half-way', async () => {
    const client = new ApiClient({ baseUrl, token: null, timeoutMs: 300 });
    for (const path of ['/silent', '/slow-body']) {
      const error = await client.json('GET', path).catch((e: unknown) => e);
      expect(error, path).toMatchObject({ status: 0, token: 'server-timeout' });
      expect((error as Error).message).toContain('300 ms');
    }
  });
});
