import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { canonicalJson, keyedDigest, keyedPayloadDigest, newRecordKey, nodeChainHasher, sha256Hex, verifyKeyedDigest } from '../../src/app/audit.js';
import { verifyStoredChain } from '../../src/app/audit-verify.js';
import { createAppContext } from '../../src/app/bootstrap.js';
import { randomIds } from '../../src/app/context.js';
import { createSession } from '../../src/app/sessions/create-session.js';
import { authenticate } from '../../src/app/credentials.js';
import { chainHash, GENESIS_PREV_HASH, verifyLinks, CHAIN_START } from '../../src/core/audit-chain.js';
import { openPostgres } from '../../src/store/dialect/postgres.js';
import { withoutResultUnused } from '../../src/store/dialect/dialect.js';
import { auditPage } from '../../src/store/audit-repo.js';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { describePostgres } from '../helpers/postgres-only.js';

/** docs/design/attribution.md "The tamper-evident log". */
async function allEntries(h: Harness) {
  return auditPage(h.store.kysely, 0, 1_000_000);
}

describe('the chain rule (pure)', () => {
  it('hash = SHA-256(bytes(prev_hash) ‖ UTF-8(entry)); the node hasher agrees with the reference definition', () => {
    const entry = canonicalJson({ b: 'é ✓ 😀', a: [1, 2, { d: null, c: true }] });
    expect(entry).toBe('{"a":[1,2,{"c":true,"d":null}],"b":"é ✓ 😀"}');
    const prev = 'ab'.repeat(32);
    const manual = sha256Hex(new Uint8Array([...Buffer.from(prev, 'hex'), ...Buffer.from(entry, 'utf8')]));
    expect(chainHash(sha256Hex, prev, entry)).toBe(manual);
    expect(nodeChainHasher(prev, entry)).toBe(manual);
    expect(GENESIS_PREV_HASH).toBe('0'.repeat(64));
  });

  it('verifyLinks names the first broken seq and why', () => {
    const links = [];
    let prev = GENESIS_PREV_HASH;
    for (let seq = 1; seq <= 5; seq++) {
      const entry = canonicalJson({ seq, kind: 'x' });
      const hash = nodeChainHasher(prev, entry);
      links.push({ seq, entry, prevHash: prev, hash });
      prev = hash;
    }
    expect(verifyLinks(nodeChainHasher, links, CHAIN_START).broken).toBeNull();
    const edited = links.map((l) => (l.seq === 3 ? { ...l, entry: l.entry.replace('x', 'y') } : l));
    expect(verifyLinks(nodeChainHasher, edited, CHAIN_START).broken).toEqual({ seq: 3, reason: 'hash-mismatch' });
    expect(
      verifyLinks(
        nodeChainHasher,
        links.filter((l) => l.seq !== 2),
        CHAIN_START,
      ).broken,
    ).toEqual({ seq: 2, reason: 'seq-gap' });
    const relinked = links.map((l) => (l.seq === 4 ? { ...l, prevHash: GENESIS_PREV_HASH } : l));
    expect(verifyLinks(nodeChainHasher, relinked, CHAIN_START).broken).toEqual({ seq: 4, reason: 'prev-hash-mismatch' });
  });

  it("keyed digests: provable with the record's key, different per record, unguessable without it", () => {
    const k1 = newRecordKey(randomIds);
    const k2 = newRecordKey(randomIds);
    expect(k1).toMatch(/^[0-9a-f]{64}$/);
    const d1 = keyedDigest(k1, 'yes');
    expect(verifyKeyedDigest(k1, 'yes', d1)).toBe(true);
    expect(verifyKeyedDigest(k1, 'no', d1)).toBe(false);
    expect(verifyKeyedDigest(k2, 'yes', d1)).toBe(false);
    expect(keyedDigest(k2, 'yes')).not.toBe(d1);
    expect(keyedPayloadDigest(k1, { b: 1, a: 2 })).toBe(keyedDigest(k1, '{"a":2,"b":1}'));
  });
});

describeEachDialect('the audit log (docs/design/attribution.md)', (t) => {
  it('entries are canonical RFC 8785 text with schema_version and seq, chained from the genesis hash, gapless', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('al'));
    const s = (await h.create(token, { title: 'chained' })).session;
    await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token, body: { title: 'chained again' } });
    const rows = await allEntries(h);
    expect(rows[0]!.prevHash).toBe(GENESIS_PREV_HASH);
    rows.forEach((row, i) => {
      expect(row.seq).toBe(i + 1);
      const parsed = JSON.parse(row.entry);
      expect(canonicalJson(parsed)).toBe(row.entry);
      expect(parsed).toMatchObject({ schema_version: 1, seq: row.seq });
      expect(row.prevHash).toBe(i === 0 ? GENESIS_PREV_HASH : rows[i - 1]!.hash);
      expect(row.hash).toBe(chainHash(sha256Hex, row.prevHash, row.entry));
    });
    expect((await verifyStoredChain(h.store.kysely)).ok).toBe(true);
  });

  it('every evidence event is mirrored with a keyed digest of its details, never the words; the key goes with the event', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('bo'));
    const secretWords = `launch codes ${uniqueKey('w')}`;
    const s = (await h.create(token, { prompt: secretWords })).session;
    const events = await h.store.kysely.selectFrom('session_events').selectAll().where('session_id', '=', s.id).orderBy('seq').execute();
    // a human token's prompt is captured as a human message (docs/design/capture.md) in the same transaction
    expect(events.map((e) => e.type)).toEqual(['created', 'human_message', 'title_generated']);
    const mirrored = (await allEntries(h)).map((r) => JSON.parse(r.entry)).filter((e) => e.kind === 'session_event' && e.session_id === s.id);
    expect(mirrored.map((e) => [e.type, e.event_seq])).toEqual([
      ['created', 1],
      ['human_message', 2],
      ['title_generated', 3],
    ]);
    for (const [i, e] of events.entries()) {
      expect(mirrored[i].details_digest).toBe(keyedPayloadDigest(e.digest_key!, JSON.parse(e.details)));
      expect(mirrored[i]).not.toHaveProperty('details');
    }
    const logText = (await allEntries(h)).map((r) => r.entry).join('\n');
    expect(logText).not.toContain(secretWords);
    await h.request('DELETE', `/api/v1/sessions/${s.id}`, { token });
    expect(await h.store.kysely.selectFrom('session_events').select('digest_key').where('session_id', '=', s.id).execute()).toEqual([]);
    expect((await allEntries(h)).map((r) => JSON.parse(r.entry)).filter((e) => e.kind === 'session_event' && e.session_id === s.id)).toHaveLength(3);
  });

  it('the append is the last thing in its transaction (after the graph lock, under the chain lock)', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('cal'));
    const s = (await h.create(token, { title: 'x' })).session;
    await h.ctx.live.settle();
    h.store.queryLog.start();
    await h.request('DELETE', `/api/v1/sessions/${s.id}`, { token });
    // the live hub reads committed events on another connection: not part of this transaction
    const log = h.store.queryLog
      .stop()
      .map(withoutResultUnused)
      .filter((q) => !q.startsWith('select * from "live_events"'));
    // the append alone, or (PostgreSQL) one statement writing the live events and the append
    const appends = (q: string) => /^insert into "?audit_log"?/.test(q) || (q.startsWith('with ') && q.includes('insert into audit_log'));
    const lastInsert = log.map((q) => q.toLowerCase()).findLastIndex(appends);
    expect(lastInsert).toBeGreaterThan(0);
    expect(log[lastInsert + 1]).toMatch(/^commit$/i);
    const begin = log.findIndex((q) => /^begin/i.test(q));
    const locks = log.map((q, i) => (q.includes('pg_advisory_xact_lock') ? i : -1)).filter((i) => i >= 0);
    if (h.dialect === 'postgres') {
      // graph lock first, chain lock last: then only the append, with the live events and their wake-up in the same statement
      expect(locks).toHaveLength(2);
      expect(locks[0]).toBe(begin + 1);
      expect(lastInsert).toBe(locks[1]! + 1);
      expect(log[lastInsert]).toContain('insert into live_events');
      expect(log[lastInsert]).toContain('pg_notify');
      // the live counter's row is taken only there, after the chain lock: every writer takes the two in one order
      expect(log.slice(0, lastInsert).some((q) => q.includes('live_event'))).toBe(false);
    } else {
      expect(locks).toEqual([]);
    }
  });

  it('audit rows are immutable in the database: UPDATE and DELETE fail', async () => {
    const h = t();
    const db = h.store.kysely;
    await expect(db.updateTable('audit_log').set({ entry: '{}' }).where('seq', '=', 1).execute()).rejects.toThrow(/immutable/);
    await expect(db.deleteFrom('audit_log').where('seq', '=', 1).execute()).rejects.toThrow(/immutable/);
    await expect(sql`delete from audit_log`.execute(db)).rejects.toThrow(/immutable/);
    expect((await verifyStoredChain(db)).ok).toBe(true);
  });
});

describeEachDialect('a corrupted audit log (triggers dropped deliberately)', (t) => {
  it('verify names the first broken seq for an edited entry, an edited hash, a relinked row and a deleted row', async () => {
    const h = t();
    for (let i = 0; i < 4; i++) await h.create(h.fleetKey, { title: `s${i}` });
    const db = h.store.kysely;
    for (const stmt of h.store.dropImmutableTriggersSql('audit_log')) await sql.raw(stmt).execute(db);
    const rows = await allEntries(h);
    const k = rows[Math.floor(rows.length / 2)]!;
    expect(k.seq).toBeGreaterThan(1);

    await db
      .updateTable('audit_log')
      .set({ entry: k.entry.replace('"kind"', '"kind" ') })
      .where('seq', '=', k.seq)
      .execute();
    expect((await verifyStoredChain(db)).broken).toMatchObject({ seq: k.seq, reason: 'hash-mismatch' });
    await db.updateTable('audit_log').set({ entry: k.entry }).where('seq', '=', k.seq).execute();
    expect((await verifyStoredChain(db)).ok).toBe(true);

    await db
      .updateTable('audit_log')
      .set({ hash: 'f'.repeat(64) })
      .where('seq', '=', k.seq)
      .execute();
    const r = await verifyStoredChain(db);
    expect(r.broken).toMatchObject({ seq: k.seq, reason: 'hash-mismatch' });
    expect(r.entries).toBe(k.seq - 1);
    await db.updateTable('audit_log').set({ hash: k.hash }).where('seq', '=', k.seq).execute();

    await db.updateTable('audit_log').set({ prev_hash: GENESIS_PREV_HASH }).where('seq', '=', k.seq).execute();
    expect((await verifyStoredChain(db)).broken).toMatchObject({ seq: k.seq, reason: 'prev-hash-mismatch' });
    await db.updateTable('audit_log').set({ prev_hash: k.prevHash }).where('seq', '=', k.seq).execute();

    await db.deleteFrom('audit_log').where('seq', '=', k.seq).execute();
    expect((await verifyStoredChain(db, { pageSize: 2 })).broken).toMatchObject({ seq: k.seq, reason: 'seq-gap' });
    await db.insertInto('audit_log').values({ seq: k.seq, entry: k.entry, prev_hash: k.prevHash, hash: k.hash }).execute();
    expect((await verifyStoredChain(db, { pageSize: 2 })).ok).toBe(true);

    for (const stmt of h.store.immutableTableSql('audit_log', {})) await sql.raw(stmt).execute(db);
    await expect(db.deleteFrom('audit_log').where('seq', '=', k.seq).execute()).rejects.toThrow(/immutable/);
  });
});

describePostgres('appends from two API nodes', (t) => {
  it('stay linear: concurrent writes through two separate stores leave one gapless chain that verifies', async () => {
    const h = t();
    // a second node: its own connection pool on the same database (SQLite's multi-process case
    // is covered by the two-process concurrency tests)
    const second = openPostgres({ connectionString: h.database.databaseUrl!, maxConnections: 8 });
    try {
      const ctx2 = await createAppContext(second, { logger: pino({ level: 'silent' }) });
      const fleet2 = await authenticate(ctx2, h.fleetKey, 'rest', 'rest');
      const before = (await allEntries(h)).length;
      await Promise.all([
        ...Array.from({ length: 12 }, (_, i) => h.create(h.fleetKey, { title: `node one ${i}` })),
        ...Array.from({ length: 12 }, (_, i) => createSession(ctx2, fleet2, { title: `node two ${i}` })),
      ]);
      const rows = await allEntries(h);
      expect(rows.length).toBe(before + 24);
      expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
      expect((await verifyStoredChain(h.store.kysely)).ok).toBe(true);
    } finally {
      await second.destroy();
    }
  });
});
