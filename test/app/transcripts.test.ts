import { expect, it } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import type { SeamPoint } from '../../src/app/context.js';
import { changeSetting } from '../../src/app/settings.js';
import { MAX_TRANSCRIPT_CHUNK_BYTES } from '../../src/app/sessions/transcript.js';
import { Barrier } from '../helpers/barrier.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { eventsOf, liveSession } from '../helpers/lineage.js';
import { append, child, fileBytes, position, records, runtimeSnapshot } from '../helpers/runtimes.js';

/** Transcripts appended by byte offset (docs/design/agent-runtimes.md "Transcripts"). */
describeEachDialect('transcripts appended by offset', (t, dialect) => {
  it('lines are stored exactly as written, each with its conversation and byte offset; the position follows the file', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    expect(await position(h, s.token, s.id)).toBe(0);
    // multi-byte text, trailing spaces, a carriage return, an empty line, a line that is not JSON
    const first = ['{"type":"user","message":{"content":"héllo 👋"}}', '{"type":"assistant"}  ', ''];
    const r1 = await append(h, s.token, s.id, { offset: 0, lines: first });
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({ appended: 3, next_offset: fileBytes(first) });
    const second = ['not json\r', '{"n":2}'];
    const r2 = await append(h, s.token, s.id, { offset: fileBytes(first), lines: second });
    expect(r2.body.next_offset).toBe(fileBytes([...first, ...second]));
    expect(await position(h, s.token, s.id)).toBe(fileBytes([...first, ...second]));
    const got = await records(h, s.id);
    expect(got.map((r) => r.line)).toEqual([...first, ...second]);
    expect(got.map((r) => r.offset)).toEqual([
      0,
      fileBytes(first.slice(0, 1)),
      fileBytes(first.slice(0, 2)),
      fileBytes(first),
      fileBytes([...first, 'not json\r']),
    ]);
    expect(got.every((r) => r.provider === 'claude-code' && r.conversation_id === 'conv-1' && r.restarted === false)).toBe(true);
    expect(got[0].record).toEqual({ type: 'user', message: { content: 'héllo 👋' } });
    expect(got[3].record).toBeNull();
    // the concatenated lines are the file, byte for byte
    expect(Buffer.byteLength([...first, ...second].map((l) => `${l}\n`).join(''), 'utf8')).toBe(r2.body.next_offset);
    // readable by the session's readers; an empty append records nothing
    const reader = await h.human(uniqueKey());
    expect((await h.request('GET', `/api/v1/sessions/${s.id}/transcript`, { token: reader.token })).body.records).toHaveLength(5);
    const before = await runtimeSnapshot(h);
    expect((await append(h, s.token, s.id, { offset: r2.body.next_offset, lines: [] })).body).toEqual({ appended: 0, next_offset: r2.body.next_offset });
    expect(await runtimeSnapshot(h)).toEqual(before);
  });

  it('an offset that is not the next one is refused with the expected offset — forged backwards, skipped ahead — and nothing is stored', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const lines = ['{"a":1}', '{"b":2}'];
    await append(h, s.token, s.id, { offset: 0, lines });
    const before = await runtimeSnapshot(h);
    for (const offset of [0, 3, fileBytes(lines) - 1, fileBytes(lines) + 1]) {
      const r = await append(h, s.token, s.id, { offset, lines: ['{"forged":true}'] });
      expect([r.status, r.body.error, r.body.expected_offset], String(offset)).toEqual([409, 'transcript-offset-mismatch', fileBytes(lines)]);
    }
    // a first append for a conversation starts at 0
    const fresh = await append(h, s.token, s.id, { conversation_id: 'conv-new', offset: 10, lines: ['{}'] });
    expect([fresh.status, fresh.body.expected_offset]).toEqual([409, 0]);
    expect(await runtimeSnapshot(h)).toEqual(before);
    expect((await records(h, s.id)).map((r) => r.line)).toEqual(lines);
  });

  it('each conversation of each session has its own position', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const other = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    await append(h, s.token, s.id, { offset: 0, lines: ['{"one":1}'] });
    expect((await append(h, s.token, s.id, { conversation_id: 'conv-2', offset: 0, lines: ['{"two":2}', '{}'] })).status).toBe(200);
    expect((await append(h, other.token, other.id, { offset: 0, lines: ['{}'] })).status).toBe(200);
    expect([
      await position(h, s.token, s.id),
      await position(h, s.token, s.id, 'conv-2'),
      await position(h, other.token, other.id),
      await position(h, s.token, s.id, 'conv-3'),
    ]).toEqual([10, 13, 3, 0]);
    expect((await records(h, s.id)).map((r) => [r.conversation_id, r.offset])).toEqual([
      ['conv-1', 0],
      ['conv-2', 0],
      ['conv-2', 10],
    ]);
  });

  it('a restarted file appends from 0 again and the record says so; restarted needs offset 0', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    await append(h, s.token, s.id, { offset: 0, lines: ['{"old":1}', '{"old":2}'] });
    const bad = await append(h, s.token, s.id, { offset: 5, restarted: true, lines: ['{}'] });
    expect([bad.status, bad.body.error, bad.body.field]).toEqual([400, 'invalid-request', 'offset']);
    const r = await append(h, s.token, s.id, { offset: 0, restarted: true, lines: ['{"new":1}'] });
    expect(r.body).toEqual({ appended: 1, next_offset: 10 });
    const got = await records(h, s.id);
    expect(got.map((x) => [x.line, x.offset, x.restarted])).toEqual([
      ['{"old":1}', 0, false],
      ['{"old":2}', 10, false],
      ['{"new":1}', 0, true],
    ]);
    const events = await eventsOf(h, s.id, 'transcript_appended');
    expect(events.map((e) => [e.details.offset, e.details.next_offset, e.details.restarted ?? false, e.details.previous_offset ?? null])).toEqual([
      [0, 20, false, null],
      [0, 10, true, 20],
    ]);
    expect((await append(h, s.token, s.id, { offset: 10, lines: ['{"new":2}'] })).status).toBe(200);
  });

  it('two appends racing at the same offset: exactly one lands, the other is told where the file continues', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    for (const start of [0, 8]) {
      if (start > 0) expect((await append(h, s.token, s.id, { offset: 0, lines: ['{"a":1}'] })).status).toBe(200);
      const barrier = new Barrier(2);
      // PostgreSQL: both have read the position before either writes (SQLite's write transactions are serial)
      if (dialect === 'postgres') h.ctx.seams = { afterRead: async (point: SeamPoint) => (point === 'transcript-append' ? barrier.arrive() : undefined) };
      try {
        const [a, b] = await Promise.all([
          append(h, s.token, s.id, { conversation_id: `race-${start}`, offset: 0, lines: ['{"by":"a"}'] }),
          append(h, s.token, s.id, { conversation_id: `race-${start}`, offset: 0, lines: ['{"by":"b"}', '{}'] }),
        ]);
        expect([a.status, b.status].sort()).toEqual([200, 409]);
        const [won, lost] = a.status === 200 ? [a, b] : [b, a];
        expect(lost.body).toMatchObject({ error: 'transcript-offset-mismatch', expected_offset: won.body.next_offset });
        if (dialect === 'postgres') expect(barrier.arrived).toBe(2);
      } finally {
        h.ctx.seams = undefined;
      }
      const lines = (await records(h, s.id)).filter((r) => r.conversation_id === `race-${start}`);
      expect(lines.length === 1 || lines.length === 2).toBe(true);
      expect(new Set(lines.map((r) => r.record?.by ?? 'b')).size).toBe(1);
    }
  });

  it('the transcripts setting off refuses appends and stores nothing; on again, they continue', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    await append(h, s.token, s.id, { offset: 0, lines: ['{}'] });
    await changeSetting(h.ctx, systemCaller('cli'), 'transcripts', 'off');
    try {
      const state = await h.request('GET', `/api/v1/sessions/${s.id}/transcript/position?provider=claude-code&conversation_id=conv-1`, { token: s.token });
      expect(state.body).toMatchObject({ next_offset: 3, transcripts: 'off' });
      const before = await runtimeSnapshot(h);
      const r = await append(h, s.token, s.id, { offset: 3, lines: ['{"secret":"words"}'] });
      expect([r.status, r.body.error]).toEqual([409, 'transcripts-off']);
      expect(await runtimeSnapshot(h)).toEqual(before);
    } finally {
      await changeSetting(h.ctx, systemCaller('cli'), 'transcripts', null);
    }
    expect((await append(h, s.token, s.id, { offset: 3, lines: ['{}'] })).status).toBe(200);
    const bad = await changeSetting(h.ctx, systemCaller('cli'), 'transcripts', 'maybe').catch((e: { token: string }) => e.token);
    expect(bad).toBe('invalid-setting');
  });

  it('a request carries at most 1 MiB of the file: exactly 1 MiB lands (its JSON body is larger), one byte more is 413', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    // quotes escape to two bytes: the JSON body is well over 1 MiB while the file's bytes are exactly 1 MiB
    const full = '"'.repeat(MAX_TRANSCRIPT_CHUNK_BYTES - 1);
    const before = await runtimeSnapshot(h);
    const over = await append(h, s.token, s.id, { offset: 0, lines: [full + '"'] });
    expect([over.status, over.body.error, over.body.max_bytes]).toEqual([413, 'transcript-chunk-too-large', MAX_TRANSCRIPT_CHUNK_BYTES]);
    const tooMany = await append(h, s.token, s.id, { offset: 0, lines: Array.from({ length: 16_385 }, () => '') });
    expect([tooMany.status, tooMany.body.error]).toEqual([413, 'transcript-chunk-too-large']);
    expect(await runtimeSnapshot(h)).toEqual(before);
    const ok = await append(h, s.token, s.id, { offset: 0, lines: [full] });
    expect(ok.body).toEqual({ appended: 1, next_offset: MAX_TRANSCRIPT_CHUNK_BYTES });
    expect((await records(h, s.id))[0].line).toBe(full);
  });

  it('input is checked: a line holding a newline, NUL or a lone surrogate, a bad offset, the old records shape', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const before = await runtimeSnapshot(h);
    for (const body of [
      { offset: 0, lines: ['a\nb'] },
      { offset: 0, lines: ['a\u0000b'] },
      { offset: 0, lines: ['\ud800'] },
      { offset: 0, lines: [1] },
      { offset: -1, lines: [] },
      { offset: 1.5, lines: [] },
      { offset: 0, lines: 'x' },
      { offset: 0, lines: [], conversation_id: '' },
      { records: [{ text: 'hi' }] },
    ]) {
      const r = await append(h, s.token, s.id, body);
      expect([r.status, r.body.error], JSON.stringify(body)).toEqual([400, 'invalid-request']);
    }
    const mismatch = await append(h, s.token, s.id, { provider: 'codex', offset: 0, lines: ['{}'] });
    expect([mismatch.status, mismatch.body.error]).toEqual([409, 'provider-mismatch']);
    expect(await runtimeSnapshot(h)).toEqual(before);
  });

  it('hostile: another session, a human or a client cannot append; the audit log holds digests only', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const other = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const human = await h.human(uniqueKey());
    const clientToken = await h.clientKey(
      `c${uniqueKey('k')
        .replace(/[^a-z0-9]/g, '')
        .slice(-10)}`,
    );
    const before = await runtimeSnapshot(h);
    for (const token of [other.token, human.token, clientToken]) {
      const r = await append(h, token, s.id, { offset: 0, lines: ['{"forged":true}'] });
      expect([r.status, r.body.error]).toEqual([403, 'forbidden']);
    }
    expect(await runtimeSnapshot(h)).toEqual(before);
    const marker = `words-nobody-else-wrote-${uniqueKey()}`;
    const auditBefore = await h.store.kysely
      .selectFrom('audit_log')
      .select((eb) => eb.fn.max('seq').as('m'))
      .executeTakeFirstOrThrow();
    expect((await append(h, s.token, s.id, { offset: 0, lines: [JSON.stringify({ text: marker })] })).status).toBe(200);
    const entries = await h.store.kysely
      .selectFrom('audit_log')
      .select('entry')
      .where('seq', '>', Number(auditBefore.m ?? 0))
      .execute();
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.some((e) => /"type":"transcript_appended"/.test(e.entry) && /"details_digest":"[0-9a-f]{64}"/.test(e.entry))).toBe(true);
    for (const e of entries) expect(e.entry).not.toContain(marker);
  });

  it("a runtime child's transcript is its own: the parent appends it, the parent's position is untouched", async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const id = (await child(h, parent.token, parent.id, { conversation_id: 'agent-t' })).body.session.id;
    expect((await append(h, parent.token, id, { conversation_id: 'agent-t', offset: 0, lines: ['{"sub":1}'] })).body.next_offset).toBe(10);
    expect(await position(h, parent.token, id, 'agent-t')).toBe(10);
    expect(await position(h, parent.token, parent.id, 'agent-t')).toBe(0);
    expect(await records(h, parent.id)).toEqual([]);
  });
});
