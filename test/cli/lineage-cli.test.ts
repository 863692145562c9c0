import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness, uniqueKey, type Harness } from '../helpers/harness.js';
import { cli, listen } from '../helpers/cli.js';
import { liveSession, uncleRows } from '../helpers/lineage.js';

/**
 * The CLI is transport only (every rule is tested on both stores through REST and MCP), and
 * each run of the binary costs a process start, so this suite runs against one store.
 */
describe('CLI: sessions create, follow-up, enqueue, interrupt, uncle remove, set-parent (the built binary)', () => {
  let harness: Harness;
  let server: { url: string; close: () => Promise<void> };
  const t = () => harness;
  beforeAll(async () => {
    harness = await openHarness('sqlite');
    server = await listen(harness);
  });
  afterAll(async () => {
    await server?.close();
    await harness?.close();
  });
  const as = (token: string, extra: Record<string, string> = {}) => ({ WARRANT_URL: server.url, WARRANT_TOKEN: token, ...extra });

  it('sessions create: a parent hint is resolved or dropped with its reason; never a failure', async () => {
    const h = t();
    const parent = (await h.create(h.fleetKey, { title: 'router' })).session;
    const r = await cli(['sessions', 'create', '--title', 'worker', '--parent', String(parent.id), '--json'], as(h.fleetKey));
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.parent_resolution).toMatchObject({ resolved_id: parent.id, basis: 'declared' });
    expect(body.session).toMatchObject({ title: 'worker', parent_session_id: parent.id });
    const dropped = await cli(['sessions', 'create', '--title', 'orphan', '--parent', '999999999'], as(h.fleetKey));
    expect(dropped.code).toBe(0);
    expect(dropped.stdout).toMatch(/^Created session #\d+ \(pending\) orphan\nparent: none — hint "999999999" dropped: not-found\n$/);
  });

  it('sessions create with a session token makes an authenticated child; --attach prints the new token once', async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey);
    const r = await cli(['sessions', 'create', '--title', 'child', '--attach'], { WARRANT_URL: server.url, WARRANT_SESSION_TOKEN: parent.token });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`parent: #${parent.id} (authenticated)`);
    expect(r.stdout).toMatch(/session token \(shown once\): wrt_s_\S+/);
  });

  it('follow-up as a session: delivered, with the uncle-edge outcome; text from arguments or stdin', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    const r = await cli(['follow-up', String(b.id), 'please', 'rerun', 'the', 'tests'], { WARRANT_URL: server.url, WARRANT_SESSION_TOKEN: a.token });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`is in session #${b.id}'s inbox (next_turn, pending)`);
    expect(r.stdout).toContain(`Uncle edge: written — #${a.id} → #${b.id} (authenticated)`);
    const piped = await cli(['follow-up', String(b.id), '-', '--json'], as(h.fleetKey), 'line one\nline two\n');
    expect(JSON.parse(piped.stdout)).toMatchObject({ inbox_item: { content: 'line one\nline two\n' }, uncle_edge: { outcome: 'no-acting-session' } });
    const declared = await cli(['follow-up', String(b.id), 'x', '--acting-session', String(a.id), '--json'], as(h.fleetKey));
    expect(JSON.parse(declared.stdout).uncle_edge).toMatchObject({ outcome: 'noop-already-senior', basis: 'declared' });
    const items = await h.request('GET', `/api/v1/sessions/${b.id}/inbox`, { token: h.fleetKey });
    expect(items.body.items.map((i: any) => i.content)).toEqual(['please rerun the tests', 'line one\nline two\n', 'x']);
  });

  it('a human is never an acting session: the refusal is printed with its token and exit 1', async () => {
    const h = t();
    const human = await h.human(uniqueKey());
    const s = await liveSession(h, human.token);
    const r = await cli(['follow-up', String(s.id), 'x', '--acting-session', String(s.id)], as(human.token));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: acting-session-not-allowed: /);
    const empty = await cli(['follow-up', String(s.id), ' '], as(human.token));
    expect(empty.code).toBe(2);
  });

  it('enqueue, enqueued list / send-now / withdraw, interrupt (new text or a queued message), inbox list', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey);
    const env = as(h.fleetKey);
    const queued = JSON.parse((await cli(['enqueue', String(s.id), 'when', 'free', '--json'], env)).stdout).inbox_item.id;
    const queued2 = JSON.parse((await cli(['enqueue', String(s.id), 'second', '--json'], env)).stdout).inbox_item.id;
    const listed = await cli(['enqueued', 'list', String(s.id)], env);
    expect(listed.stdout).toContain(`Session #${s.id}'s queue:`);
    expect(listed.stdout).toContain(`- ${queued} [pending] enqueued · when_idle`);
    expect((await cli(['enqueued', 'send-now', String(s.id), String(queued)], env)).stdout).toContain(`Enqueued message ${queued} is now next_turn`);
    expect((await cli(['interrupt', String(s.id), '--message', String(queued2)], env)).stdout).toContain(`Enqueued message ${queued2} is now interrupt`);
    const fresh = await cli(['interrupt', String(s.id), 'stop', 'now', '--json'], env);
    expect(JSON.parse(fresh.stdout).inbox_item).toMatchObject({ mode: 'interrupt', content: 'stop now' });
    expect((await cli(['interrupt', String(s.id)], env)).code).toBe(2);
    expect((await cli(['enqueued', 'withdraw', String(s.id), String(queued)], env)).stdout).toContain(`Enqueued message ${queued} was withdrawn`);
    const again = await cli(['enqueued', 'withdraw', String(s.id), String(queued)], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('enqueued-message-not-pending');
    const inbox = await cli(['inbox', 'list', String(s.id)], env);
    expect(inbox.stdout).toContain(`Session #${s.id}'s inbox:`);
    expect(inbox.stdout).toContain('stop now');
    expect(inbox.stdout).not.toContain(`- ${queued} `);
  });

  it("deliveries resend: an undelivered item returns to pending; anything else is refused with the server's token", async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey);
    const env = as(h.fleetKey);
    const id = (await h.request('POST', `/api/v1/sessions/${s.id}/follow_up`, { token: h.fleetKey, body: { content: 'typed, never taken' } })).body.inbox_item
      .id;
    await h.request('POST', `/api/v1/sessions/${s.id}/inbox/lease`, { token: s.token, body: {} });
    await h.request('POST', `/api/v1/sessions/${s.id}/inbox/written`, { token: s.token, body: { ids: [id] } });
    const early = await cli(['deliveries', 'resend', String(id)], env);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain('inbox-item-not-undelivered');
    const past = new Date(Date.now() - 1000).toISOString();
    await h.store.kysely.updateTable('inbox_items').set({ written_deadline: past }).where('id', '=', id).execute();
    const listed = await cli(['inbox', 'list', String(s.id), '--state', 'undelivered'], env);
    expect(listed.stdout).toContain(`- ${id} [undelivered: written into the agent`);
    const r = await cli(['deliveries', 'resend', String(id)], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Follow-up ${id} is pending again in session #${s.id}'s inbox`);
    expect((await cli(['deliveries', 'resend', 'x1'], env)).code).toBe(2);
  });

  it('uncle remove and sessions set-parent', async () => {
    const h = t();
    const human = await h.human(uniqueKey());
    const a = await liveSession(h, human.token);
    const b = await liveSession(h, human.token);
    await h.request('POST', `/api/v1/sessions/${b.id}/follow_up`, { token: a.token, body: { content: 'x' } });
    const reversed = await cli(['uncle', 'remove', String(a.id), String(b.id)], as(human.token));
    expect(reversed.code).toBe(1);
    expect(reversed.stderr).toContain('uncle-link-reversed');
    const removed = await cli(['uncle', 'remove', String(b.id), String(a.id)], as(human.token));
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(`Removed the uncle edge ${a.id} → ${b.id}.\n`);
    expect(await uncleRows(h, [a.id, b.id])).toEqual([]);
    const set = await cli(['sessions', 'set-parent', String(b.id), String(a.id)], as(human.token));
    expect(set.stdout).toBe(`Session #${b.id}'s parent is now #${a.id} (corrected).\n`);
    expect((await cli(['sessions', 'set-parent', String(b.id), String(a.id)], as(human.token))).stdout).toContain('No change');
    const cleared = await cli(['sessions', 'set-parent', String(b.id), 'none'], as(human.token));
    expect(cleared.stdout).toBe(`Session #${b.id}'s parent is now none.\n`);
    const refused = await cli(['sessions', 'set-parent', String(a.id), String(b.id)], as(human.token));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('parent-not-older');
  });
});
