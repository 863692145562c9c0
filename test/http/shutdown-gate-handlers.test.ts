import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { HttpEnv } from '../../src/http/env.js';
import { ShutdownGate } from '../../src/http/shutdown-gate.js';

describe('ShutdownGate: admitted handlers', () => {
  it('waits for every admitted handler to return, even one whose client is gone; refuses new requests once closed', async () => {
    const gate = new ShutdownGate();
    const app = new Hono<HttpEnv>();
    app.use('*', gate.middleware());
    let finishWrite!: () => void;
    const writing = new Promise<void>((resolve) => (finishWrite = resolve));
    app.post('/write', async (c) => {
      await writing;
      return c.json({ ok: true });
    });
    app.get('/read', (c) => c.json({ ok: true }));

    await expect(gate.handlersDone()).resolves.toBeUndefined();
    // a client that sends a write and leaves: nobody awaits the answer, the handler goes on
    const abandoned = app.request('/write', { method: 'POST' });
    await new Promise((resolve) => setImmediate(resolve));
    gate.close();
    let done = false;
    const settled = gate.handlersDone().then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(false);
    const refused = await app.request('/read');
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: 'shutting-down' });
    finishWrite();
    await settled;
    expect(done).toBe(true);
    expect((await abandoned).status).toBe(200);
  });

  it('counts a handler that throws as finished', async () => {
    const gate = new ShutdownGate();
    const app = new Hono<HttpEnv>();
    app.use('*', gate.middleware());
    app.get('/boom', () => {
      throw new Error('boom');
    });
    expect((await app.request('/boom')).status).toBe(500);
    await expect(gate.handlersDone()).resolves.toBeUndefined();
  });
});
