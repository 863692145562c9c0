/**
 * Issue 16's delivery acceptance against the real Claude Code: `warrant run --inbox` writes a
 * follow-up into `claude -p --input-format stream-json`, and the ledger calls it `delivered`
 * only once Claude's own UserPromptSubmit hook (wired by `warrant integrate`) reported it. One
 * Claude never took stays `written`, reads `undelivered` past its deadline (the lease), and
 * only a resend makes it `pending` again. `--inbox` for a provider the runner cannot speak to
 * is refused before anything starts.
 */
import { describe, expect, it } from 'vitest';
import { CLAUDE_BIN, CODEX_JS, scratchDir } from './agent-clis.js';
import { integratedClaude, ledger, runInBackground, waitFor } from './integrated.js';
import { startModelEndpoint, when } from './model-endpoint.js';
import { projectIn, warrantForSuite } from './warrant-run.js';

const STREAM_JSON = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'];

describe('delivery into Claude Code under warrant run --inbox', () => {
  const warrant = warrantForSuite();

  /** POST with the fleet key (as a control plane would). */
  async function fleetPost(path: string, body: unknown): Promise<any> {
    const r = await fetch(`${warrant.server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${warrant.server.fleetKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`POST ${path}: ${r.status} ${text}`);
    return JSON.parse(text);
  }

  it('a follow-up is written, then delivered once the prompt hook reported it; one Claude never took stays written, reads undelivered past its deadline, and only a resend makes it pending', async () => {
    const dir = scratchDir('acc-delivery');
    const project = projectIn(dir);
    const endpoint = await startModelEndpoint([
      { name: 'one', when: when.userSays('FOLLOW-UP one'), reply: { text: 'took one' } },
      // the model is still thinking about the second when the third is written and the agent is stopped
      { name: 'two (slow)', when: when.userSays('FOLLOW-UP two'), reply: { text: 'took two' }, delayMs: 30_000 },
      { name: 'three', when: when.userSays('FOLLOW-UP three'), reply: { text: 'took three' } },
    ]);
    const api = ledger(warrant);
    const title = 'acceptance delivery';
    try {
      const env = await integratedClaude(project, endpoint.url);
      const run = runInBackground(warrant, ['--title', title, '--inbox', '--provider', 'claude-code'], [CLAUDE_BIN, ...STREAM_JSON], { cwd: project, env });
      try {
        const session = await waitFor('the session to run', async () => {
          const list = (await warrant.get(`/api/v1/sessions?q=${encodeURIComponent(title)}`)).sessions as any[];
          return list.find((s) => s.title === title && s.status === 'running');
        });
        const itemEvents = async (itemId: number) =>
          (await api.events(session.id)).filter((e) => e.type.startsWith('inbox_item_') && e.details?.inbox_item_id === itemId).map((e) => e.type);
        const stateOf = async (itemId: number) => (await api.inbox(session.id)).find((i) => i.id === itemId)?.state as string | undefined;

        const one = (await fleetPost(`/api/v1/sessions/${session.id}/follow_up`, { content: 'FOLLOW-UP one: keep the tests green' })).inbox_item;
        await waitFor('the first follow-up delivered', async () => ((await stateOf(one.id)) === 'delivered' ? true : undefined));
        expect(await itemEvents(one.id)).toEqual(['inbox_item_added', 'inbox_item_written', 'inbox_item_delivered']);
        const delivered = (await api.events(session.id)).find((e) => e.type === 'inbox_item_delivered' && e.details.inbox_item_id === one.id);
        expect(delivered.details).toMatchObject({ via: 'prompt_report' });

        const two = (await fleetPost(`/api/v1/sessions/${session.id}/follow_up`, { content: 'FOLLOW-UP two' })).inbox_item;
        await waitFor('the second follow-up delivered', async () => ((await stateOf(two.id)) === 'delivered' ? true : undefined));
        const three = (await fleetPost(`/api/v1/sessions/${session.id}/follow_up`, { content: 'FOLLOW-UP three' })).inbox_item;
        await waitFor('the third follow-up written', async () => ((await stateOf(three.id)) === 'written' ? true : undefined));
        // Claude is still inside the second turn: stop it before it takes the third
        await fleetPost(`/api/v1/sessions/${session.id}/stop`, {});
        const ended = await run.done;
        expect(ended.stderr).toMatch(/stop requested/);
        expect(endpoint.modelRequests.some((r) => r.lastUserText.includes('FOLLOW-UP three'))).toBe(false);

        // written, never reported: not delivered, however long the runner had
        expect(await stateOf(three.id)).toBe('written');
        expect(await itemEvents(three.id)).toEqual(['inbox_item_added', 'inbox_item_written']);
        const written = (await api.inbox(session.id)).find((i) => i.id === three.id);
        // the deadline is the lease (60 s, not configurable): wait it out
        const deadline = Date.parse(written.written_deadline);
        expect(deadline - Date.parse(written.written_at)).toBe(60_000);
        await new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()) + 500));
        expect(await stateOf(three.id)).toBe('undelivered');
        const resent = await fleetPost(`/api/v1/inbox/${three.id}/resend`, {});
        expect(resent.inbox_item.state).toBe('pending');
        expect(await stateOf(three.id)).toBe('pending');
        // the two Claude took stay delivered
        expect([await stateOf(one.id), await stateOf(two.id)]).toEqual(['delivered', 'delivered']);
      } finally {
        run.kill();
      }
    } finally {
      await endpoint.close();
    }
  });

  it('--inbox for Codex is refused at start (unsupported-provider) and no session is created (beside the Claude run above)', async () => {
    const dir = scratchDir('acc-inbox-codex');
    const project = projectIn(dir);
    const before = (await warrant.get('/api/v1/sessions')).sessions.length;
    const run = await warrant.run('acceptance codex inbox', [process.execPath, CODEX_JS, 'exec', '--skip-git-repo-check', 'hello'], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
      extraArgs: ['--inbox', '--provider', 'codex'],
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unsupported-provider/);
    expect(run.stderr).toMatch(/Nothing was started/);
    expect((await warrant.get('/api/v1/sessions')).sessions.length).toBe(before);
  });
});
