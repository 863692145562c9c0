import { expect } from 'vitest';
import { RUNTIME_EVENT_TYPES } from '../../../src/app/write-scope.js';
import { openStore } from '../../../src/store/connect.js';
import { runCli } from '../../helpers/cli.js';
import type { Ack } from './load.js';

export interface StoreLocation {
  databaseUrl: string | null;
  sqliteFile: string;
  dataDir: string;
}

/**
 * After a crash or a shutdown: every acknowledged write is in the store with its event; no
 * change exists without its event nor an event without its change; every evidence event is
 * in the audit log and the log names none that is missing. Returns how many acks it checked.
 */
export async function expectAcknowledgedWritesKept(where: StoreLocation, acks: readonly Ack[]): Promise<number> {
  const store = await openStore({ databaseUrl: where.databaseUrl, sqliteFile: where.sqliteFile }, { migrate: false });
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
    const lost: string[] = [];
    for (const ack of acks) {
      const evs = bySession.get(ack.id) ?? [];
      const kept =
        sessions.has(ack.id) &&
        (ack.kind === 'create'
          ? evs.some((e) => e.type === 'created')
          : ack.kind === 'patch'
            ? evs.some((e) => e.type === 'title_changed' && e.details.new === ack.title)
            : evs.some((e) => e.type === 'archived'));
      if (!kept) lost.push(`${ack.kind} #${ack.id} ${ack.title}`);
    }
    expect(lost, 'acknowledged writes missing from the store').toEqual([]);
    for (const [id, s] of sessions) {
      const evs = bySession.get(id) ?? [];
      expect(evs[0]?.type, `#${id} starts with created`).toBe('created');
      const rename = [...evs].reverse().find((e) => e.type === 'title_changed');
      if (rename) expect(s.title, `title of #${id}`).toBe(rename.details.new);
      else expect(s.title, `title of #${id} was never renamed`).not.toMatch(/renamed$/);
      expect(s.status === 'archived', `status of #${id}`).toBe(evs.some((e) => e.type === 'archived'));
      expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i + 1));
    }
    const mirrored = (await k.selectFrom('audit_log').select('entry').execute()).map((r) => JSON.parse(r.entry)).filter((e) => e.kind === 'session_event');
    const logged = new Set(mirrored.map((e) => `${e.session_id}:${e.event_seq}`));
    const stored = new Set(events.filter((e) => !RUNTIME_EVENT_TYPES.has(e.type)).map((e) => `${e.session_id}:${e.seq}`));
    expect([...logged].sort()).toEqual([...stored].sort());
    return acks.length;
  } finally {
    await store.destroy();
  }
}

/** `warrant audit verify` against the store: exit 0 and its OK line. */
export async function expectAuditVerifies(where: StoreLocation): Promise<void> {
  const verify = await runCli(['audit', 'verify', '--data-dir', where.dataDir, ...(where.databaseUrl ? ['--database-url', where.databaseUrl] : [])]);
  expect(verify.stdout + verify.stderr).toContain('OK: the audit log');
  expect(verify.code).toBe(0);
}
