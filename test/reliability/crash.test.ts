import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { RUNTIME_EVENT_TYPES } from '../../src/app/write-scope.js';
import { openStore } from '../../src/store/connect.js';
import { CLI, runCli } from '../helpers/cli.js';
import { createTestDatabase, pgAvailable, type DialectName } from '../helpers/databases.js';

/**
 * spec 07 "Crash safety": kill -9 the server under write load, restart, then: every write
 * that was acknowledged (2xx) is present; no event exists without its change or change
 * without its event; `warrant audit verify` passes.
 */
interface Server {
  child: ChildProcess;
  url: string;
}

function startServer(dataDir: string, databaseUrl: string | null): Promise<Server> {
  const args = [CLI, 'serve', '--port', '0', '--data-dir', dataDir, ...(databaseUrl ? ['--database-url', databaseUrl] : [])];
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', WARRANT_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /^Warrant listening on (http:\/\/\S+)/.exec(line);
      if (m) resolve({ child, url: m[1]! });
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${stderr}`)));
  });
}

type Ack = { kind: 'create'; id: number; title: string } | { kind: 'patch'; id: number; title: string } | { kind: 'archive'; id: number };

/** Workers that create, rename and archive sessions until stopped; only 2xx answers are acks. */
function writeLoad(url: string, fleetKey: string, workers: number) {
  const acks: Ack[] = [];
  let stopped = false;
  let failures = 0;
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${fleetKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const worker = async (w: number) => {
    for (let n = 0; !stopped; n++) {
      try {
        const title = `w${w}-${n}`;
        const created = await call('POST', '/api/v1/sessions', { title });
        acks.push({ kind: 'create', id: created.session.id, title });
        const renamed = `${title} renamed`;
        await call('PATCH', `/api/v1/sessions/${created.session.id}`, { title: renamed });
        acks.push({ kind: 'patch', id: created.session.id, title: renamed });
        if (n % 2 === 0) {
          await call('POST', `/api/v1/sessions/${created.session.id}/archive`, {});
          acks.push({ kind: 'archive', id: created.session.id });
        }
      } catch {
        failures++; // the server went away mid-request: that write was never acknowledged
        if (stopped) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  const running = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  return {
    acks,
    get failures() {
      return failures;
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}

async function crashAndCheck(dialect: DialectName): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'warrant-crash-'));
  const db = dialect === 'postgres' ? await createTestDatabase('postgres') : null;
  const databaseUrl = db?.databaseUrl ?? null;
  let server = await startServer(dataDir, databaseUrl);
  try {
    const fleetKey = readFileSync(join(dataDir, 'fleet-key'), 'utf8').trim();
    const load = writeLoad(server.url, fleetKey, 8);
    // kill -9 once enough writes were acknowledged, while the workers still have requests in flight
    while (load.acks.length < 150) await new Promise((r) => setTimeout(r, 10));
    server.child.kill('SIGKILL');
    await new Promise((r) => server.child.once('exit', r));
    await load.stop();
    expect(load.failures).toBeGreaterThan(0);
    const acked = [...load.acks];

    server = await startServer(dataDir, databaseUrl);
    const store = await openStore({ databaseUrl, sqliteFile: join(dataDir, 'warrant.db') }, { migrate: false });
    try {
      const k = store.kysely;
      const sessions = new Map((await k.selectFrom('sessions').select(['id', 'title', 'status']).execute()).map((s) => [Number(s.id), s]));
      const events = await k.selectFrom('session_events').select(['session_id', 'seq', 'type', 'details']).orderBy('session_id').orderBy('seq').execute();
      const bySession = new Map<number, { seq: number; type: string; details: any }[]>();
      for (const e of events) {
        const list = bySession.get(Number(e.session_id)) ?? [];
        list.push({ seq: Number(e.seq), type: e.type, details: JSON.parse(e.details) });
        bySession.set(Number(e.session_id), list);
      }

      // every acknowledged write is present, with its event
      for (const ack of acked) {
        const evs = bySession.get(ack.id) ?? [];
        expect(sessions.has(ack.id), `acknowledged session #${ack.id}`).toBe(true);
        if (ack.kind === 'create') expect(evs.some((e) => e.type === 'created')).toBe(true);
        if (ack.kind === 'patch') expect(evs.some((e) => e.type === 'title_changed' && e.details.new === ack.title)).toBe(true);
        if (ack.kind === 'archive') expect(evs.some((e) => e.type === 'archived')).toBe(true);
      }
      // no change without its event, no event without its change
      for (const [id, s] of sessions) {
        const evs = bySession.get(id) ?? [];
        expect(evs[0]?.type, `#${id} starts with created`).toBe('created');
        const rename = [...evs].reverse().find((e) => e.type === 'title_changed');
        if (rename) expect(s.title, `title of #${id}`).toBe(rename.details.new);
        else expect(s.title, `title of #${id} was never renamed`).not.toMatch(/renamed$/);
        expect(s.status === 'archived', `status of #${id}`).toBe(evs.some((e) => e.type === 'archived'));
        expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i + 1));
      }
      // every evidence event is in the log, and the log names no event that is not there
      const mirrored = (await k.selectFrom('audit_log').select('entry').execute()).map((r) => JSON.parse(r.entry)).filter((e) => e.kind === 'session_event');
      const logged = new Set(mirrored.map((e) => `${e.session_id}:${e.event_seq}`));
      const stored = new Set(events.filter((e) => !RUNTIME_EVENT_TYPES.has(e.type)).map((e) => `${e.session_id}:${e.seq}`));
      expect([...logged].sort()).toEqual([...stored].sort());
    } finally {
      await store.destroy();
    }
    const verify = await runCli(['audit', 'verify', '--data-dir', dataDir, ...(databaseUrl ? ['--database-url', databaseUrl] : [])]);
    expect(verify.stdout).toContain('OK: the audit log');
    expect(verify.code).toBe(0);
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => (server.child.exitCode !== null ? r(null) : server.child.once('exit', r)));
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('crash safety (kill -9 under write load)', () => {
  it('on SQLite: acknowledged writes survive, events and changes agree, the chain verifies', async () => {
    await crashAndCheck('sqlite');
  });
  it.skipIf(!pgAvailable())('on PostgreSQL: acknowledged writes survive, events and changes agree, the chain verifies', async () => {
    await crashAndCheck('postgres');
  });
});
