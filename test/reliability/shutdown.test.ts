import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, pgAvailable, type DialectName } from '../helpers/databases.js';
import { startServer } from '../helpers/server-process.js';
import { SseReader } from '../helpers/sse.js';
import { expectAcknowledgedWritesKept, expectAuditVerifies } from './support/verify.js';
import { figure, mixedLoad, report, until, type Ack } from './support/load.js';

/**
 * SIGTERM in the middle of heavy mixed load (docs/operations.md, "Shutdown"). The workers
 * keep sending after the signal, as real clients do, on many keep-alive connections: a
 * request admitted before the signal is answered for real (the store closes only after the
 * last one), one arriving after it gets 503 `shutting-down` or a refused connection — never
 * a 500 — live streams end, every acknowledged write is in the store after a restart, and the
 * process exits 0. A drain that closes the store on a timer fails this every run.
 */
const WORKERS = 64;
const STREAMS = 8;

describe.each<DialectName>(['sqlite', 'postgres'])('warrant serve drains at shutdown under load [%s]', (dialect) => {
  // like every PostgreSQL suite: skipped only off CI without a server (CI fails instead, global-setup.ts)
  it.skipIf(dialect === 'postgres' && !pgAvailable())(
    'every admitted request is answered (never a 500), streams end, acknowledged writes survive, exit 0',
    { timeout: 180_000 },
    async () => {
      const db = await createTestDatabase(dialect);
      const cwd = mkdtempSync(join(tmpdir(), 'warrant-shutdown-'));
      const dataDir = join(cwd, '.warrant');
      const args = ['--port', '0', ...(db.databaseUrl ? ['--database-url', db.databaseUrl] : [])];
      const server = await startServer({ args, cwd, dataDir });
      try {
        const auth = { authorization: `Bearer ${server.fleetKey}` };
        const streams = await Promise.all(Array.from({ length: STREAMS }, () => fetch(`${server.url}/api/v1/events/stream`, { headers: auth })));
        expect(streams.map((s) => s.status)).toEqual(streams.map(() => 200));
        const readers = streams.map((s) => new SseReader(s));
        for (const r of readers) await r.next((e) => e.event === 'ready');

        // this machine's pace under the mixed load, to size the burst below
        const pacing = mixedLoad(server.url, server.fleetKey, { workers: WORKERS });
        const started = Date.now();
        await until(() => pacing.acks.length >= 100);
        const pace = pacing.answered / Math.max(0.001, (Date.now() - started) / 1000);
        await pacing.stop();
        expect(pacing.unexpected).toEqual([]);
        // a burst of creates on connections opened beforehand, sized to hold several seconds of
        // admitted work; then the mixed load again, and the signal lands with most of the burst queued
        const burst = await creates(server.url, server.fleetKey, Math.round(Math.min(4000, Math.max(100, pace * 5))));
        const load = mixedLoad(server.url, server.fleetKey, { workers: WORKERS, endOnTransportError: true });
        burst.fire();
        await until(() => load.acks.length >= 50 && burst.answered >= burst.size / 10);
        load.mark();
        burst.mark();
        const signalled = Date.now();
        const exited = server.stop('SIGTERM');
        const ended = readers.map((r) => endOf(r));
        const code = await exited;
        const drainSeconds = (Date.now() - signalled) / 1000;
        await Promise.all([load.done, burst.done]);
        const streamEnds = await Promise.all(ended);

        expect([...load.unexpected, ...burst.unexpected], 'answers outside the documented statuses').toEqual([]);
        // every burst request was sent on an open connection before the drain ended: each got a
        // real answer (201, or 503 shutting-down if read after the signal), none a reset
        expect(burst.transportErrors, 'burst requests left without an answer').toBe(0);
        expect(code).toBe(0);
        expect(server.output()).not.toMatch(/destroyed|unhandled|internal-error/i);
        expect(streamEnds).toEqual(readers.map(() => 'ended'));
        // requests were in flight at the signal, and they were answered after it
        expect(load.answeredAfterMark + burst.createdAfterMark).toBeGreaterThan(0);

        const restarted = await startServer({ args, cwd, dataDir });
        await restarted.stop('SIGTERM');
        const where = { databaseUrl: db.databaseUrl, sqliteFile: join(dataDir, 'warrant.db'), dataDir };
        const checked = await expectAcknowledgedWritesKept(where, [...pacing.acks, ...load.acks, ...burst.acks]);
        await expectAuditVerifies(where);
        report(
          `shutdown ${dialect}: ${WORKERS} workers + a burst of ${figure(burst.size)} creates; ${figure(load.answered + burst.answered)} answers ` +
            `(${figure(load.answeredAfterMark + burst.answeredAfterMark)} after SIGTERM, ${figure(burst.createdAfterMark)} of them burst creates; ` +
            `${figure((load.refusals.get('shutting-down') ?? 0) + burst.shuttingDown)} shutting-down, ${figure(load.transportErrors + burst.transportErrors)} refused connections), ` +
            `${figure(checked)} acknowledged writes, 0 lost, 0 500s, drained in ${drainSeconds.toFixed(1)} s, exit ${code}`,
        );
      } finally {
        await server.stop('SIGKILL');
        await db.drop();
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );
});

/**
 * `n` creates at once, each on its own keep-alive connection, opened (and accepted by the
 * node) beforehand with a health check, so every create reaches the node's parser: those it
 * reads before the signal are admitted, those after are refused. Only a 201 is an
 * acknowledgement.
 */
async function creates(url: string, token: string, n: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: n, maxFreeSockets: n });
  const acks: Ack[] = [];
  const unexpected: string[] = [];
  let answered = 0;
  let answeredAfterMark = 0;
  let createdAfterMark = 0;
  let shuttingDown = 0;
  let transportErrors = 0;
  let marked = false;
  const warm = await Promise.all(Array.from({ length: n }, () => send(agent, url, 'GET', '/api/v1/health', token)));
  if (warm.some((r) => r.status !== 200)) throw new Error('the burst connections could not be opened');
  const kept = Object.values(agent.freeSockets).reduce((sum, list) => sum + (list?.length ?? 0), 0);
  if (kept !== n) throw new Error(`${kept} of ${n} burst connections stayed open`);
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => (fire = resolve));
  const one = async (i: number): Promise<void> => {
    await fired;
    const title = `burst-${i}`;
    try {
      const res = await send(agent, url, 'POST', '/api/v1/sessions', token, { title });
      answered++;
      if (marked) answeredAfterMark++;
      const json = JSON.parse(res.body);
      if (res.status === 201) {
        acks.push({ kind: 'create', id: json.session.id, title });
        if (marked) createdAfterMark++;
      } else if (res.status === 503 && json.error === 'shutting-down') shuttingDown++;
      else unexpected.push(`POST /api/v1/sessions: ${res.status} ${res.body.slice(0, 300)}`);
    } catch {
      transportErrors++;
    }
  };
  const done = Promise.all(Array.from({ length: n }, (_, i) => one(i))).finally(() => agent.destroy());
  return {
    size: n,
    acks,
    unexpected,
    done,
    fire,
    mark: () => (marked = true),
    get answered() {
      return answered;
    },
    get answeredAfterMark() {
      return answeredAfterMark;
    },
    get createdAfterMark() {
      return createdAfterMark;
    },
    get shuttingDown() {
      return shuttingDown;
    },
    get transportErrors() {
      return transportErrors;
    },
  };
}

function send(agent: Agent, base: string, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      new URL(path, base),
      {
        agent,
        method,
        headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** 'ended' once the server closes the stream; a hang guard otherwise. */
async function endOf(reader: SseReader): Promise<string> {
  try {
    for (;;) await reader.next(() => true, 30_000);
  } catch (error) {
    return (error as Error).message === 'SSE stream ended' ? 'ended' : (error as Error).message;
  }
}
