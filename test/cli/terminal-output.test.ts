import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownToPlainText } from '../../src/render/plain-text.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { CLI, cli, listen } from '../helpers/cli.js';
import { reportConversation } from '../helpers/messages.js';
import { openTerminal } from '../runner/witness-pty.js';

/** The CLI where a person reads it: plain text on a terminal, confirmation before a deletion, help that names its environment. */
describe('markdown as plain text for a terminal', () => {
  it('drops escapes and markers, keeps the words, links and fenced lines', () => {
    expect(markdownToPlainText('## Session Hierarchy\n- #3 ref\\_2212 \\*not bold\\* **bold** `code` \\# \\[x\\]')).toBe(
      'Session Hierarchy\n- #3 ref_2212 *not bold* bold code # [x]',
    );
    expect(markdownToPlainText('see [the docs](https://example.test/a_b)')).toBe('see the docs <https://example.test/a_b>');
    expect(markdownToPlainText('```\nraw \\_ stays\n```\nafter')).toBe('raw \\_ stays\nafter');
    // nothing a user wrote reaches the terminal as an escape sequence
    expect(markdownToPlainText('title \u001b[31mred\u001b[0m\u0007 end')).toBe('title [31mred[0m end');
    expect(markdownToPlainText('a \\\\ backslash')).toBe('a \\ backslash');
  });
});

describeEachDialect('CLI on a terminal (built binary under a real PTY)', (t) => {
  let server: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    server = await listen(t());
  });
  afterAll(async () => {
    await server.close();
  });
  const env = (token = t().fleetKey) => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', WARRANT_URL: server.url, WARRANT_TOKEN: token });

  it('prints plain text on a terminal and the exact markdown when piped (or as WARRANT_OUTPUT says)', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'fix ref_2212 *now*' })).session;
    const piped = await cli(['sessions', 'show', String(s.id)], env());
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain('fix ref\\_2212 \\*now\\*');
    const term = openTerminal(process.execPath, [CLI, 'sessions', 'show', String(s.id)], env(), { cols: 200, rows: 50 });
    expect(await term.exited).toBe(0);
    expect(term.text()).toContain('fix ref_2212 *now*');
    expect(term.text()).not.toContain('\\_');
    const forced = await cli(['sessions', 'show', String(s.id)], { ...env(), WARRANT_OUTPUT: 'plain' });
    expect(forced.stdout).toContain('fix ref_2212 *now*');
    expect(forced.stdout).toBe(markdownToPlainText(piped.stdout.replace(/\n$/, '')) + '\n');
  });

  it('delete asks on a terminal (no deletes nothing, yes deletes) and needs --yes without one', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('deleter'), { admin: true });
    const s = (await h.create(token, { title: 'to be deleted' })).session;
    const exists = async () => (await h.request('GET', `/api/v1/sessions/${s.id}`, { token })).status;

    const piped = await cli(['delete', String(s.id)], env(token));
    expect(piped.code).toBe(2);
    expect(piped.stderr).toMatch(/^error: confirmation-required: .*--yes/);
    expect(await exists()).toBe(200);

    const no = openTerminal(process.execPath, [CLI, 'delete', String(s.id)], env(token));
    await no.until('[y/N]');
    no.type('n\r');
    expect(await no.exited).toBe(1);
    expect(no.text()).toContain('Not deleted.');
    expect(await exists()).toBe(200);

    const yes = openTerminal(process.execPath, [CLI, 'delete', String(s.id)], env(token));
    await yes.until('[y/N]');
    yes.type('y\r');
    expect(await yes.exited).toBe(0);
    expect(yes.text()).toContain(`Deleted session #${s.id}`);
    expect(await exists()).toBe(404);

    const other = (await h.create(token, { title: 'scripted delete' })).session;
    const scripted = await cli(['delete', String(other.id), '--yes'], env(token));
    expect(scripted.code, scripted.stderr).toBe(0);
  });

  it('--help names the environment; conversations list reads the history; provenance pages with --cursor; run says which session it is', async () => {
    const h = t();
    const help = await cli(['--help'], env());
    expect(help.code).toBe(0);
    for (const name of ['WARRANT_URL', 'WARRANT_TOKEN', 'WARRANT_SESSION_TOKEN', 'WARRANT_DATA_DIR']) expect(help.stdout).toContain(name);

    const live = await h.create(h.fleetKey, { title: 'talks to claude', attach: true });
    expect((await reportConversation(h, live.session_token, live.session.id, 'conv-1')).status).toBe(200);
    expect((await reportConversation(h, live.session_token, live.session.id, 'conv-2')).status).toBe(200);
    const listed = await cli(['conversations', 'list', String(live.session.id), '--json'], env());
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).conversations.map((c: any) => c.conversation_id)).toEqual(['conv-2', 'conv-1']);
    const text = await cli(['conversations', 'list', String(live.session.id)], env());
    expect(text.stdout).toContain('conv-2');

    const { token } = await h.human(uniqueKey('pager'));
    const asked = (await h.create(token, { title: 'asked thrice', prompt: 'first' })).session;
    for (const words of ['second', 'third'])
      expect((await h.request('POST', `/api/v1/sessions/${asked.id}/enqueued_messages`, { token, body: { content: words } })).status).toBe(201);
    const first = JSON.parse((await cli(['provenance', String(asked.id), '--json', '--limit', '2'], env())).stdout);
    expect(first.human_messages.entries).toHaveLength(2);
    expect(first.human_messages.next_cursor).toEqual(expect.any(String));
    const rest = JSON.parse(
      (await cli(['provenance', String(asked.id), '--json', '--limit', '2', '--cursor', first.human_messages.next_cursor], env())).stdout,
    );
    expect(rest.human_messages.entries).toHaveLength(1);
    expect([...first.human_messages.entries, ...rest.human_messages.entries].map((e: any) => e.id).sort()).toHaveLength(3);

    const run = await cli(['run', '--title', 'quick', '--', process.execPath, '-e', ''], env());
    expect(run.code, run.stderr).toBe(0);
    const id = Number(/created session #(\d+) /.exec(run.stderr)?.[1]);
    expect((await h.request('GET', `/api/v1/sessions/${id}`, { token: h.fleetKey })).body.session.title).toBe('quick');
  });
});
