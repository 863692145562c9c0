import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { warrantMessageFrame } from '../../src/core/inbox-frames.js';
import { readHistoryLine } from '../../src/core/message-history-format.js';
import { cli, listen, storeArgs } from '../helpers/cli.js';
import { describeEachDialect, openHarness, uniqueKey, type Harness } from '../helpers/harness.js';
import { liveSession, type Live } from '../helpers/lineage.js';
import { delivered, leaseAndAck, reportConversation, sent, storeSnapshot } from '../helpers/messages.js';

/**
 * The built binary against a real listening server: `warrant message send|status`,
 * `warrant messages export`, `warrant hook claude-code` fed a real SessionStart, and
 * `warrant conversations backfill` over a fixture directory of transcripts made here.
 */
async function withServer<T>(h: Harness, fn: (url: string) => Promise<T>): Promise<T> {
  const server = await listen(h);
  try {
    return await fn(server.url);
  } finally {
    await server.close();
  }
}

const line = (record: Record<string, unknown>) =>
  JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd: '/home/dev/proj',
    version: '1.0.0',
    uuid: randomUUID(),
    timestamp: new Date().toISOString(),
    ...record,
  });
const userTurn = (sessionId: string, content: unknown, extra: Record<string, unknown> = {}) =>
  line({ sessionId, type: 'user', message: { role: 'user', content }, ...extra });
const assistantTurn = (sessionId: string, text: string) =>
  line({ sessionId, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] } });

/** The frame text a runtime really received for a message to `to` (sent, leased, acknowledged). */
async function realFrame(h: Harness, from: Live, to: Live, payload: string): Promise<string> {
  await sent(h, from.token, { to: to.id, payload });
  const [item] = await leaseAndAck(h, to);
  return item.frame.text;
}

describeEachDialect('CLI: messages export, the Claude Code hook, backfill (the built binary)', (t) => {
  it('messages export writes the history as JSON Lines a zero-value reader reads; never a payload', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    const m = await delivered(h, a, b, { payload: 'classified words' });
    const dir = mkdtempSync(join(tmpdir(), 'warrant-export-'));
    try {
      const r = await cli(['messages', 'export', ...storeArgs(h)], {});
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trim().split('\n').map(readHistoryLine);
      const mine = lines.find((l) => l.id === m.id)!;
      expect(mine).toMatchObject({
        schema_version: 1,
        ref: m.ref,
        state: 'delivered',
        payload_sha256: m.payload_sha256,
        source: { session_id: a.id },
        target: { session_id: b.id },
      });
      expect(r.stdout).not.toContain('classified words');
      const out = join(dir, 'history.jsonl');
      expect((await cli(['messages', 'export', '--out', out, ...storeArgs(h)], {})).code).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe(r.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the Claude Code hook outside `warrant run`: silent without a session token; with one but no runner it records nothing and says so as a systemMessage', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey, { title: 'claude worker' });
    const conversation = randomUUID();
    const hookJson = JSON.stringify({
      session_id: conversation,
      transcript_path: `/home/dev/.claude/projects/-home-dev-proj/${conversation}.jsonl`,
      cwd: '/home/dev/proj',
      hook_event_name: 'SessionStart',
      source: 'startup',
    });
    await withServer(h, async (url) => {
      // no session token: a silent no-op (the agent runs outside Warrant)
      const silent = await cli(['hook', 'claude-code'], { WARRANT_URL: url }, hookJson);
      expect([silent.code, silent.stdout, silent.stderr]).toEqual([0, '', '']);
      const env = { WARRANT_URL: url, WARRANT_SESSION_ID: String(s.id), WARRANT_SESSION_TOKEN: s.token };
      const r = await cli(['hook', 'claude-code'], env, hookJson);
      expect([r.code, r.stderr]).toEqual([0, '']);
      // never plain stdout (the agent would add it to the model's context): one JSON systemMessage
      expect(JSON.parse(r.stdout)).toEqual({ systemMessage: expect.stringContaining('not started by `warrant run`') });
      const list = (await h.request('GET', `/api/v1/sessions/${s.id}/conversations`, { token: h.fleetKey })).body.conversations;
      expect(list).toEqual([]);
    });
  });

  it('conversations backfill: exact counts over a fixture directory, only single-target transcripts attributed, a second run appends nothing, --dry-run writes nothing', async () => {
    const h = t();
    const admin = await h.human(uniqueKey('admin'), { admin: true });
    const sender = await liveSession(h, h.fleetKey, { title: 'router' });
    const x = await liveSession(h, h.fleetKey, { title: 'x' });
    const z = await liveSession(h, h.fleetKey, { title: 'z' });
    const w = await liveSession(h, h.fleetKey, { title: 'w' });
    const xCurrent = randomUUID();
    await reportConversation(h, x.token, x.id, xCurrent);
    const toX = await realFrame(h, sender, x, 'build the docs');
    const toZ = await realFrame(h, sender, z, 'run the tests');
    const toW = await realFrame(h, sender, w, 'deploy');
    const toNobody = JSON.stringify(
      warrantMessageFrame({
        itemId: 1,
        itemKind: 'agent_message',
        from: { session_id: sender.id, basis: 'authenticated' },
        toSessionId: 999_999_999,
        content: 'lost',
      }),
    );

    const root = mkdtempSync(join(tmpdir(), 'warrant-claude-'));
    const claude = join(root, 'claude');
    const project = join(claude, 'projects', '-home-dev-proj');
    mkdirSync(join(project, 'nested'), { recursive: true });
    const ids = { single: randomUUID(), multi: randomUUID(), none: randomUUID(), unknown: randomUUID(), broken: randomUUID(), binary: randomUUID() };
    const file = (id: string, lines: string[]) => writeFileSync(join(project, `${id}.jsonl`), lines.join('\n') + '\n');
    file(ids.single, [
      line({ type: 'summary', summary: 'x' }),
      userTurn(ids.single, toX),
      assistantTurn(ids.single, `quoting: ${toZ}`),
      userTurn(ids.single, [{ type: 'tool_result', tool_use_id: 't1', content: toZ }]),
      userTurn(ids.single, toZ, { isSidechain: true }),
      '{"truncated": ',
      userTurn(ids.single, [{ type: 'text', text: `again: ${toX}` }]),
    ]);
    file(ids.multi, [userTurn(ids.multi, toX), userTurn(ids.multi, toZ)]);
    file(ids.none, [userTurn(ids.none, 'just a person typing'), assistantTurn(ids.none, 'ok')]);
    file(xCurrent, [userTurn(xCurrent, toX)]);
    file(ids.unknown, [userTurn(ids.unknown, toNobody)]);
    file(ids.broken, [userTurn(ids.broken, '{"kind":"warrant-message","to":'), userTurn(ids.broken, toW)]);
    writeFileSync(join(project, `${ids.binary}.jsonl`), Buffer.from([0x7b, 0xff, 0xfe, 0x0a]));
    // never read: a symlinked file, a symlinked project, a file two levels deep, one directly under projects, another extension
    symlinkSync(join(project, `${ids.single}.jsonl`), join(project, `${randomUUID()}.jsonl`));
    symlinkSync(project, join(claude, 'projects', 'linked-project'));
    writeFileSync(join(project, 'nested', `${randomUUID()}.jsonl`), userTurn('n', toZ) + '\n');
    writeFileSync(join(claude, 'projects', `${randomUUID()}.jsonl`), userTurn('t', toZ) + '\n');
    writeFileSync(join(project, 'notes.txt'), userTurn('n', toZ) + '\n');

    const expected = {
      scanned: 7,
      attributed: 2,
      already_estimated: 0,
      skipped_observed: 1,
      ambiguous: 2,
      no_frame: 1,
      unreadable: 1,
      malformed_lines: 1,
      malformed_frames: 1,
    };
    const counts = (report: any) => Object.fromEntries(Object.keys(expected).map((k) => [k, report[k]]));
    const estimatedRows = async () =>
      (
        await h.store.kysely
          .selectFrom('session_conversations')
          .select(['session_id', 'conversation_id', 'source', 'transcript_path'])
          .where('source', '=', 'estimated')
          .where('session_id', 'in', [x.id, z.id, w.id])
          .orderBy('session_id')
          .execute()
      ).map((r) => [Number(r.session_id), r.conversation_id, r.transcript_path]);
    try {
      await withServer(h, async (url) => {
        const env = { WARRANT_URL: url, WARRANT_TOKEN: admin.token, CLAUDE_CONFIG_DIR: claude, HOME: root };
        const before = await storeSnapshot(h);
        const dry = await cli(['conversations', 'backfill', '--dry-run', '--json'], env);
        expect(dry.code, dry.stderr).toBe(0);
        expect(counts(JSON.parse(dry.stdout))).toEqual(expected);
        expect(await storeSnapshot(h)).toEqual(before);

        const run = await cli(['conversations', 'backfill', '--json'], env);
        expect(run.code, run.stderr).toBe(0);
        const report = JSON.parse(run.stdout);
        expect(counts(report)).toEqual(expected);
        const outcomes = Object.fromEntries(report.transcripts.map((tr: any) => [tr.conversation_id, [tr.outcome, tr.reason ?? null]]));
        expect(outcomes).toEqual({
          [ids.single]: ['attributed', null],
          [ids.multi]: ['ambiguous', 'several-targets'],
          [ids.none]: ['no_frame', null],
          [xCurrent]: ['skipped_observed', null],
          [ids.unknown]: ['ambiguous', 'target-not-found'],
          [ids.broken]: ['attributed', null],
          [ids.binary]: ['unreadable', 'not UTF-8'],
        });
        expect(await estimatedRows()).toEqual([
          [x.id, ids.single, join(project, `${ids.single}.jsonl`)],
          [w.id, ids.broken, join(project, `${ids.broken}.jsonl`)],
        ]);
        const xList = (await h.request('GET', `/api/v1/sessions/${x.id}/conversations`, { token: h.fleetKey })).body.conversations;
        expect(xList.map((c: any) => [c.conversation_id, c.status])).toEqual([
          [xCurrent, 'current'],
          [ids.single, 'estimated'],
        ]);

        // a second run appends nothing; a blank CLAUDE_CONFIG_DIR counts as unset (~/.claude)
        const home = join(root, 'home');
        mkdirSync(home);
        symlinkSync(claude, join(home, '.claude'));
        const second = await cli(['conversations', 'backfill'], { ...env, CLAUDE_CONFIG_DIR: '  ', HOME: home });
        expect(second.code, second.stderr).toBe(0);
        expect(second.stdout).toContain('Scanned 7 transcripts under');
        expect(second.stdout).toContain('  attributed: 0\n  already_estimated: 2\n');
        expect(await estimatedRows()).toHaveLength(2);

        // the admin API refuses anything but an admin: the CLI says what credential it needs
        const fleet = await cli(['conversations', 'backfill'], { ...env, WARRANT_TOKEN: h.fleetKey });
        expect(fleet.code).toBe(1);
        expect(fleet.stderr).toMatch(/^error: forbidden: .*set WARRANT_TOKEN to an admin's human token/);
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

/** Transport only (the rules are tested on both stores through REST): one store, fewer binary starts. */
describe('CLI: message send and status (the built binary)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await openHarness('sqlite');
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('message send prints the receipt; status prints the state; a refusal prints reply_to=<id>: <token> and the action, exit 1', async () => {
    const h = harness;
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    await withServer(h, async (url) => {
      const as = { WARRANT_URL: url, WARRANT_SESSION_TOKEN: a.token };
      const ok = await cli(['message', 'send', String(b.id), '--ref', 'cli-1', '--ttl', '600', '--', 'please', 'review', '#12'], as);
      expect(ok.code, ok.stderr).toBe(0);
      const id = /Accepted message (msg_[0-9a-f]{32}) \(ref cli-1\) for session #(\d+)\./.exec(ok.stdout);
      expect(id?.[2]).toBe(String(b.id));
      const json = await cli(['message', 'send', String(b.id), '--ref', 'cli-1', '--ttl', '600', '--json', '--', 'please', 'review', '#12'], as);
      expect(JSON.parse(json.stdout)).toMatchObject({ replayed: true, message: { id: id![1], ref: 'cli-1' } });
      const piped = await cli(['message', 'send', String(b.id), '--json', '--', '-'], as, 'line one\nline two\n');
      expect(JSON.parse(piped.stdout).message.payload_bytes).toBe(18);

      const st = await cli(['message', 'status', id![1]!], as);
      expect(st.stdout).toContain(`Message ${id![1]}: accepted`);
      expect(st.stdout).toContain('please review \\#12');
      await leaseAndAck(h, b);
      expect(JSON.parse((await cli(['message', 'status', id![1]!, '--json'], as)).stdout).message.state).toBe('delivered');

      const refusal = await cli(['message', 'send', String(a.id), '--reply-to', `msg_${'0'.repeat(32)}`, '--', 'answer'], {
        WARRANT_URL: url,
        WARRANT_SESSION_TOKEN: b.token,
      });
      expect(refusal.code).toBe(1);
      const lines = refusal.stderr.split('\n');
      expect(lines[0]).toBe(`reply_to=msg_${'0'.repeat(32)}: reply-original-not-found`);
      expect(refusal.stderr).toContain('action: send a new message without reply_to');
      const fresh = await cli(['message', 'send', '999999999', '--', 'anyone?'], as);
      expect([fresh.code, fresh.stderr.split('\n')[0]]).toEqual([1, 'reply_to=none: target-not-found']);
      const badTtl = await cli(['message', 'send', String(b.id), '--ttl', 'soon', '--', 'x'], as);
      expect([badTtl.code, badTtl.stderr.split('\n')[0]]).toEqual([1, 'reply_to=none: envelope-invalid']);
      const reply = await cli(['message', 'send', String(a.id), '--reply-to', id![1]!, '--json', '--', 'reviewed'], {
        WARRANT_URL: url,
        WARRANT_SESSION_TOKEN: b.token,
      });
      expect(JSON.parse(reply.stdout).message).toMatchObject({ reply_to: id![1], target: { session_id: a.id } });
      const twice = await cli(['message', 'send', String(a.id), '--reply-to', id![1]!, '--', 'again'], { WARRANT_URL: url, WARRANT_SESSION_TOKEN: b.token });
      expect(twice.stderr).toContain(`previous_id: ${JSON.parse(reply.stdout).message.id}`);
    });
  });
});
