import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Context } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { sseResponse, type SseSink } from '../../src/http/sse-sink.js';

/**
 * The Node path of the live stream's sink on a real socket: a write to a full socket waits
 * for drain (and for nothing else); a reader that leaves resolves it and aborts the sink.
 */
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function sinkWithStalledReader(): Promise<{ sink: SseSink; socket: Socket }> {
  let resolveSink!: (sink: SseSink) => void;
  const ready = new Promise<SseSink>((r) => (resolveSink = r));
  server = createServer((_req, res) => {
    const c = { env: { outgoing: res }, res: new Response(null) } as unknown as Context;
    void sseResponse(
      c,
      (sink) => new Promise<void>(() => resolveSink(sink)),
      () => {},
    );
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const socket = connect(port, '127.0.0.1', () => socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
  socket.pause();
  return { sink: await ready, socket };
}

const turn = () => new Promise((r) => setImmediate(r));

/** Writes until one write is still waiting a turn of the event loop later: the socket is full. */
async function firstWaitingWrite(sink: SseSink): Promise<{ write: Promise<void>; settled: () => boolean }> {
  const chunk = new Uint8Array(64 * 1024).fill(120);
  for (;;) {
    let settled = false;
    const write = sink.write(chunk).then(() => void (settled = true));
    await turn();
    if (!settled) return { write, settled: () => settled };
  }
}

describe('SSE sink on a Node response', () => {
  it('waits for drain when the socket is full, and resumes once the reader reads', async () => {
    const { sink, socket } = await sinkWithStalledReader();
    const waiting = await firstWaitingWrite(sink);
    for (let i = 0; i < 5; i++) await turn();
    expect(waiting.settled()).toBe(false);
    socket.resume();
    await waiting.write;
    expect(sink.aborted).toBe(false);
    socket.destroy();
  });

  it('a reader that leaves resolves the waiting write and aborts the sink', async () => {
    const { sink, socket } = await sinkWithStalledReader();
    const waiting = await firstWaitingWrite(sink);
    let aborted = false;
    sink.onAbort(() => (aborted = true));
    socket.destroy();
    await waiting.write;
    for (let i = 0; i < 100 && !aborted; i++) await new Promise((r) => setTimeout(r, 10));
    expect(aborted).toBe(true);
    expect(sink.aborted).toBe(true);
  });
});
