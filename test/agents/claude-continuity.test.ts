/**
 * Issue 16's continuity acceptance against the real Claude Code, wired only by `warrant
 * integrate`: a resumed conversation under `warrant run --session N` stays one Warrant session,
 * and a nested `claude -p` the model starts through its Bash tool (no `warrant run`) becomes a
 * child session that never idles or rebinds its parent (docs/design/agent-runtimes.md).
 */
import { describe, expect, it } from 'vitest';
import { CLAUDE_BIN, scratchDir } from './agent-clis.js';
import { integratedClaude, ledger, runInBackground, waitFor } from './integrated.js';
import { startModelEndpoint, when } from './model-endpoint.js';
import { projectIn, warrantForSuite } from './warrant-run.js';

const statesOf = (events: any[]) =>
  events.filter((e) => ['attached', 'running', 'idle', 'exited', 'failed'].includes(e.type)).map((e) => `${e.type}:${e.details.new ?? 'running'}`);

describe('Claude Code conversations and Warrant sessions', () => {
  const warrant = warrantForSuite();

  it('claude --resume and --continue under warrant run --session N keep one session: no new session, the conversation unchanged, one transcript without duplicates', async () => {
    const dir = scratchDir('acc-resume');
    const project = projectIn(dir);
    const endpoint = await startModelEndpoint([
      { when: when.userSays('FIRST TURN'), reply: { text: 'first answer' } },
      { when: when.userSays('SECOND TURN'), reply: { text: 'second answer' } },
      { when: when.userSays('THIRD TURN'), reply: { text: 'third answer' } },
    ]);
    const api = ledger(warrant);
    try {
      const env = await integratedClaude(project, endpoint.url);
      const first = await warrant.run('acceptance resume', [CLAUDE_BIN, '-p', 'FIRST TURN'], { cwd: project, env, extraArgs: ['--provider', 'claude-code'] });
      expect(first.code, first.stderr).toBe(0);
      const session = await warrant.sessionTitled('acceptance resume');
      const conversation = session.provider_conversation as string;
      expect(conversation).toMatch(/^[0-9a-f-]{36}$/);
      const sessionsBefore = (await warrant.get('/api/v1/sessions')).sessions.length;

      const attachTo = (args: string[]) =>
        warrant.run('ignored (attaching)', [CLAUDE_BIN, '-p', ...args], {
          cwd: project,
          env,
          extraArgs: ['--session', String(session.id), '--provider', 'claude-code'],
        });
      const resumed = await attachTo(['--resume', conversation, 'SECOND TURN']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const continued = await attachTo(['--continue', 'THIRD TURN']);
      expect(continued.code, continued.stderr).toBe(0);
      expect(endpoint.pending()).toEqual([]);
      // the resumed turns really ran in the same conversation: the model saw the earlier turns
      const third = endpoint.modelRequests.find((r) => r.lastUserText.includes('THIRD TURN'))!;
      expect(third.userTexts.some((t) => t.includes('FIRST TURN')) && third.userTexts.some((t) => t.includes('SECOND TURN'))).toBe(true);

      expect((await warrant.get('/api/v1/sessions')).sessions.length).toBe(sessionsBefore);
      const after = await api.session(session.id);
      expect(after).toMatchObject({ provider_conversation: conversation, activation: 3, status: 'stopped' });
      expect((await api.conversations(session.id)).map((c) => c.conversation_id)).toEqual([conversation]);
      expect(await api.children(session.id)).toEqual([]);
      const events = await api.events(session.id);
      expect(events.filter((e) => e.type === 'conversation_changed')).toHaveLength(1);
      expect(statesOf(events)).toEqual([
        'attached:running',
        'idle:idle',
        'exited:stopped',
        'attached:running',
        'idle:idle',
        'exited:stopped',
        'attached:running',
        'idle:idle',
        'exited:stopped',
      ]);
      // the transcript continued where the previous runtime left it: every line once, in file order
      const records = await api.transcript(session.id);
      const offsets = records.map((r) => r.offset as number);
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
      expect(new Set(offsets).size).toBe(offsets.length);
      const text = JSON.stringify(records);
      for (const turn of ['FIRST TURN', 'SECOND TURN', 'THIRD TURN']) expect(text).toContain(turn);
    } finally {
      await endpoint.close();
    }
  });

  it('a nested claude started through the Bash tool becomes a child session (origin nested-agent, its own conversation); the parent is neither idled while its turn goes on nor rebound', async () => {
    const dir = scratchDir('acc-nested');
    const project = projectIn(dir);
    const endpoint = await startModelEndpoint([
      {
        name: 'outer runs claude',
        when: when.userSays('OUTER TASK'),
        reply: { tool: 'Bash', input: { command: `"${CLAUDE_BIN}" -p "NESTED TASK"`, description: 'run a nested claude' }, id: 'toolu_acc_nested' },
      },
      { name: 'nested answers', when: when.userSays('NESTED TASK'), reply: { text: 'nested reply' } },
      // the outer turn goes on after the nested agent ended: the test looks at the parent meanwhile
      { name: 'outer finishes', when: when.resultOf('toolu_acc_nested'), reply: { text: 'outer done' }, delayMs: 8_000 },
    ]);
    const api = ledger(warrant);
    const title = 'acceptance nested';
    try {
      const env = await integratedClaude(project, endpoint.url);
      // the Bash tool needs its own allow rule headlessly
      const run = runInBackground(warrant, ['--title', title, '--provider', 'claude-code'], [CLAUDE_BIN, '-p', 'OUTER TASK', '--allowedTools', 'Bash'], {
        cwd: project,
        env,
      });
      try {
        await waitFor(
          'the nested agent to end',
          async () => (endpoint.modelRequests.some((r) => r.toolResults.some((t) => t.id === 'toolu_acc_nested')) ? true : undefined),
          90_000,
        );
        const session = await warrant.sessionTitled(title);
        // the runner reports in arrival order: once the child is stopped, its Stop and SessionEnd were handled
        const child = await waitFor('the nested child to stop', async () => {
          const [c] = await api.children(session.id);
          return c?.status === 'stopped' ? c : undefined;
        });
        const mid = await api.session(session.id);
        expect(mid.status, 'the nested Stop must not idle the parent mid-turn').toBe('running');
        const ended = await run.done;
        expect(ended.code, ended.stderr).toBe(0);
        expect(endpoint.pending()).toEqual([]);

        const parent = await api.session(session.id);
        const own = await api.conversations(session.id);
        expect(own).toHaveLength(1);
        expect(parent).toMatchObject({ provider_conversation: own[0].conversation_id, status: 'stopped' });
        expect(statesOf(await api.events(session.id))).toEqual(['attached:running', 'idle:idle', 'exited:stopped']);

        const children = await api.children(session.id);
        expect(children).toHaveLength(1);
        expect(await api.session(child.id)).toMatchObject({
          parent_session_id: session.id,
          parent_basis: 'authenticated',
          runtime_parent_id: session.id,
          runtime_origin: 'nested-agent',
          provider: 'claude-code',
          status: 'stopped',
        });
        const nestedConversation = (await api.session(child.id)).provider_conversation;
        expect(nestedConversation).toMatch(/^[0-9a-f-]{36}$/);
        expect(nestedConversation).not.toBe(parent.provider_conversation);
        expect((await api.conversations(child.id)).map((c) => c.conversation_id)).toEqual([nestedConversation]);
        expect(statesOf(await api.events(child.id))).toEqual(['attached:running', 'idle:idle', 'exited:stopped']);
        expect(JSON.stringify(await api.transcript(child.id))).toContain('NESTED TASK');
      } finally {
        run.kill();
      }
    } finally {
      await endpoint.close();
    }
  });
});
