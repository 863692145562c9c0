/**
 * Issue 16's Codex acceptance against the real CLI and the real wiring: CODEX_HOME configured
 * only by `warrant integrate codex --write --trust-hooks` (plus the scripted endpoint), `codex
 * exec` under `warrant run`, and the ledger read back through the REST API.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODEX_JS, scratchDir } from './agent-clis.js';
import { integratedCodex, ledger } from './integrated.js';
import { startModelEndpoint, when } from './model-endpoint.js';
import { projectIn, warrantForSuite } from './warrant-run.js';

/** Every rollout file under CODEX_HOME/sessions: thread id → its first line (session_meta). */
function rollouts(codexHome: string): Map<string, any> {
  const found = new Map<string, any>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.startsWith('rollout-') && e.name.endsWith('.jsonl')) {
        const meta = JSON.parse(readFileSync(join(d, e.name), 'utf8').split('\n')[0]!);
        found.set(String(meta.payload.id), meta);
      }
    }
  };
  walk(join(codexHome, 'sessions'));
  return found;
}

describe('Codex under warrant run, wired only by warrant integrate', () => {
  const warrant = warrantForSuite();

  it('records the thread id as the conversation, started and idle before exited (no idle after it), and the spawn_agent subagent as a child session with an authenticated spawn edge', async () => {
    const dir = scratchDir('acc-codex');
    const project = projectIn(dir);
    const endpoint = await startModelEndpoint([
      { name: 'get_session', when: when.userSays('CODEX TASK'), reply: { tool: 'mcp__warrant__get_session', input: {}, id: 'call_acc_get' } },
      {
        name: 'spawn',
        when: when.resultOf('call_acc_get'),
        reply: { tool: 'multi_agent_v1__spawn_agent', input: { message: 'SUBTASK: say hello' }, id: 'call_acc_spawn' },
      },
      { name: 'subagent answers', when: when.userSays('SUBTASK: say hello'), reply: { text: 'hello from the subagent' } },
      {
        name: 'wait',
        when: when.resultOf('call_acc_spawn'),
        reply: (r) => ({
          tool: 'multi_agent_v1__wait_agent',
          input: { targets: [JSON.parse(r.toolResults[0]!.text).agent_id], timeout_ms: 30_000 },
          id: 'call_acc_wait',
        }),
      },
      { name: 'finish', when: when.resultOf('call_acc_wait'), reply: { text: 'all done' } },
    ]);
    let env: Record<string, string>;
    try {
      env = await integratedCodex(project, endpoint.url);
      const run = await warrant.run('acceptance codex', [process.execPath, CODEX_JS, 'exec', '--skip-git-repo-check', 'CODEX TASK'], {
        cwd: project,
        env,
        extraArgs: ['--provider', 'codex'],
      });
      expect(run.code, run.stderr).toBe(0);
      expect(endpoint.pending()).toEqual([]);
    } finally {
      await endpoint.close();
    }
    const api = ledger(warrant);
    const session = await warrant.sessionTitled('acceptance codex');
    const results = endpoint.modelRequests.flatMap((r) => r.toolResults);
    expect(results.find((t) => t.id === 'call_acc_get')!.text).toContain(session.uid);
    const agentId = JSON.parse(results.find((t) => t.id === 'call_acc_spawn')!.text).agent_id as string;

    // the conversation: the parent thread's id, as Codex's own rollout names it
    const threads = rollouts(env.CODEX_HOME!);
    expect(threads.has(agentId)).toBe(true);
    const parentThread = [...threads.keys()].filter((id) => id !== agentId);
    expect(parentThread).toHaveLength(1);
    const conversations = await api.conversations(session.id);
    expect(conversations.map((c) => [c.provider, c.conversation_id])).toEqual([['codex', parentThread[0]]]);
    expect(session).toMatchObject({ provider_conversation: parentThread[0], status: 'stopped' });

    // the runtime's states in order: attached running (the runner's `started` then changes nothing), idle at the
    // turn's end (Stop, then notify), exited last — the late notify never lands after the exit
    const states = (events: any[]) =>
      events
        .filter((e) => ['attached', 'started', 'running', 'idle', 'exited', 'failed'].includes(e.type))
        .map((e) => `${e.type}:${e.details.new ?? 'running'}`);
    const events = await api.events(session.id);
    expect(states(events)).toEqual(['attached:running', 'idle:idle', 'exited:stopped']);
    expect(events.at(-1)).toMatchObject({ type: 'exited', details: { code: 0 } });
    // the subagent: a child session of this one, by the parent's own token
    const children = await api.children(session.id);
    expect(children).toHaveLength(1);
    const child = await api.session(children[0].id);
    expect(child).toMatchObject({
      parent_session_id: session.id,
      parent_basis: 'authenticated',
      creator: { kind: 'session', ref: String(session.id) },
      creator_basis: 'authenticated',
      provider: 'codex',
      provider_conversation: agentId,
      runtime_parent_id: session.id,
      runtime_origin: 'subagent',
      agent_root: 'default',
      status: 'stopped',
    });
    const childEvents = await api.events(child.id);
    expect(childEvents.find((e) => e.type === 'created')).toMatchObject({ actor: { kind: 'session', ref: String(session.id), basis: 'authenticated' } });
    expect(states(childEvents)).toEqual(['attached:running', 'idle:idle', 'exited:stopped']);
    // its rollout, appended by the parent's runtime
    expect((await api.transcript(child.id)).every((r) => r.conversation_id === agentId)).toBe(true);
    expect((await api.transcript(child.id)).length).toBeGreaterThan(0);
  });
});
