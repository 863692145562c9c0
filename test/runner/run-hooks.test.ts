import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServer, type ServerProcess } from '../helpers/server-process.js';

const HOOK = resolve(import.meta.dirname, '../../dist/hook/hook-main.cjs');

/**
 * An agent that fires the hook events Claude Code fires (payload shapes as captured from the
 * real CLI: docs/design/agent-clis.md), each through the real hook entry point and the runner
 * socket, writing its transcripts as it goes.
 */
function scriptedAgent(
  dir: string,
  steps: { payload: Record<string, unknown>; append?: { file: string; lines: string[] } }[],
  provider = 'claude-code',
): string {
  const file = join(dir, `agent-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    file,
    `import { execFileSync } from 'node:child_process';
     import { appendFileSync } from 'node:fs';
     const steps = ${JSON.stringify(steps)};
     for (const step of steps) {
       if (step.append) appendFileSync(step.append.file, step.append.lines.map((l) => l + '\\n').join(''));
       const out = execFileSync(process.execPath, [${JSON.stringify(HOOK)}, ${JSON.stringify(provider)}], { input: JSON.stringify(step.payload) }).toString();
       if (out) process.stderr.write('hook said: ' + out);
     }`,
  );
  return file;
}

describe('warrant run and the agent hooks: subagents and nested agents as child sessions, /clear, transcripts by offset', () => {
  let server: ServerProcess;
  const dir = mkdtempSync(join(tmpdir(), 'warrant-run-hooks-'));
  const api = async (path: string) => {
    const r = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.fleetKey}` } });
    return r.json();
  };
  const sessionTitled = async (title: string) => (await api(`/api/v1/sessions?q=${encodeURIComponent(title)}`)).sessions.find((s: any) => s.title === title);
  const childrenOf = async (id: number) => (await api(`/api/v1/sessions?parent=${id}`)).sessions as any[];
  const transcriptOf = async (id: number) => (await api(`/api/v1/sessions/${id}/transcript`)).records as any[];
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('one run: the first conversation is the session own, a subagent and a nested agent become authenticated children, a nested Stop never idles the parent, /clear keeps the session', async () => {
    const main = 'a1b2c3d4-0000-4000-8000-000000000001';
    const nested = 'a1b2c3d4-0000-4000-8000-000000000002';
    const cleared = 'a1b2c3d4-0000-4000-8000-000000000003';
    const agentId = 'a485f3ab8c0c026ff';
    const mainTranscript = join(dir, `${main}.jsonl`);
    const subTranscript = join(dir, `agent-${agentId}.jsonl`);
    const nestedTranscript = join(dir, `${nested}.jsonl`);
    for (const f of [mainTranscript, subTranscript, nestedTranscript]) writeFileSync(f, '');
    const line = (n: number, who: string) => JSON.stringify({ type: 'assistant', n, who });
    const agent = scriptedAgent(dir, [
      { payload: { hook_event_name: 'SessionStart', session_id: main, transcript_path: mainTranscript, source: 'startup' } },
      {
        payload: { hook_event_name: 'UserPromptSubmit', session_id: main, transcript_path: mainTranscript, prompt: 'Check the deploy.' },
        append: { file: mainTranscript, lines: [line(1, 'main')] },
      },
      { payload: { hook_event_name: 'SubagentStart', session_id: main, transcript_path: mainTranscript, agent_id: agentId, agent_type: 'general-purpose' } },
      {
        payload: {
          hook_event_name: 'SubagentStop',
          session_id: main,
          transcript_path: mainTranscript,
          agent_id: agentId,
          agent_type: 'general-purpose',
          agent_transcript_path: subTranscript,
          stop_hook_active: false,
        },
        append: { file: subTranscript, lines: [line(1, 'sub'), line(2, 'sub')] },
      },
      { payload: { hook_event_name: 'SessionStart', session_id: nested, transcript_path: nestedTranscript, source: 'startup' } },
      {
        payload: { hook_event_name: 'Stop', session_id: nested, transcript_path: nestedTranscript, stop_hook_active: false },
        append: { file: nestedTranscript, lines: [line(1, 'nested')] },
      },
      { payload: { hook_event_name: 'SessionEnd', session_id: nested, transcript_path: nestedTranscript, reason: 'other' } },
      {
        payload: { hook_event_name: 'Stop', session_id: main, transcript_path: mainTranscript, stop_hook_active: false },
        append: { file: mainTranscript, lines: [line(2, 'main')] },
      },
      { payload: { hook_event_name: 'SessionStart', session_id: cleared, source: 'clear' } },
      {
        payload: { hook_event_name: 'SessionEnd', session_id: main, transcript_path: mainTranscript, reason: 'other' },
        append: { file: mainTranscript, lines: [line(3, 'main')] },
      },
    ]);
    const r = await runCli(['run', '--title', 'hooked agent', '--provider', 'claude-code', '--', process.execPath, agent], {
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('could not');
    expect(r.stderr).not.toContain('hook said');

    const parent = await sessionTitled('hooked agent');
    expect(parent).toMatchObject({ status: 'stopped', provider: 'claude-code', provider_conversation: cleared });
    const conversations = (await api(`/api/v1/sessions/${parent.id}/conversations`)).conversations as any[];
    expect(conversations.map((c) => c.conversation_id).sort()).toEqual([main, cleared].sort());

    const children = await childrenOf(parent.id);
    expect(children).toHaveLength(2);
    const sub = children.find((c) => c.provider_conversation === agentId);
    const nest = children.find((c) => c.provider_conversation === nested);
    expect(sub).toMatchObject({
      agent_root: 'general-purpose',
      parent_basis: 'authenticated',
      creator: { kind: 'session', ref: String(parent.id) },
      status: 'stopped',
    });
    expect(nest).toMatchObject({ parent_basis: 'authenticated', status: 'stopped' });

    // the nested agent's Stop idled the nested child, never the parent: the parent idled once, on its own Stop
    const parentEvents = ((await api(`/api/v1/sessions/${parent.id}/events`)).events as any[]).map((e) => e.type);
    expect(parentEvents.filter((t) => t === 'idle')).toHaveLength(1);
    const nestedEvents = ((await api(`/api/v1/sessions/${nest.id}/events`)).events as any[]).map((e) => e.type);
    expect(nestedEvents).toContain('idle');

    // each transcript exactly once, in order, under its own session
    expect((await transcriptOf(parent.id)).map((x) => JSON.parse(x.line ?? JSON.stringify(x.record)).n)).toEqual([1, 2, 3]);
    expect((await transcriptOf(sub.id)).map((x) => JSON.parse(x.line ?? JSON.stringify(x.record)).n)).toEqual([1, 2]);
    expect((await transcriptOf(nest.id)).map((x) => JSON.parse(x.line ?? JSON.stringify(x.record)).n)).toEqual([1]);
  });

  it('--no-transcript records the conversation but no transcript; a Codex notify reports the thread and idle before exited', async () => {
    const conversation = 'b1b2c3d4-0000-4000-8000-000000000001';
    const transcript = join(dir, `${conversation}.jsonl`);
    writeFileSync(transcript, '');
    appendFileSync(transcript, JSON.stringify({ type: 'user' }) + '\n');
    const agent = scriptedAgent(dir, [
      { payload: { hook_event_name: 'SessionStart', session_id: conversation, transcript_path: transcript, source: 'startup' } },
      { payload: { hook_event_name: 'Stop', session_id: conversation, transcript_path: transcript } },
    ]);
    const r = await runCli(['run', '--title', 'no transcript', '--no-transcript', '--provider', 'claude-code', '--', process.execPath, agent], {
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
    });
    expect(r.code, r.stderr).toBe(0);
    const s = await sessionTitled('no transcript');
    expect(s.provider_conversation).toBe(conversation);
    expect(await transcriptOf(s.id)).toEqual([]);

    // Codex's notify passes its payload as the last argument
    const thread = '019a0000-0000-7000-8000-000000000001';
    const codexAgent = join(dir, 'codex-like.mjs');
    writeFileSync(
      codexAgent,
      `import { execFileSync } from 'node:child_process';
       const payload = JSON.stringify({ type: 'agent-turn-complete', 'thread-id': ${JSON.stringify(thread)}, 'turn-id': 't1', 'input-messages': ['hi'], 'last-assistant-message': 'done' });
       execFileSync(process.execPath, [${JSON.stringify(HOOK)}, 'codex', payload]);
       process.exit(0);`,
    );
    const c = await runCli(['run', '--title', 'codex like', '--provider', 'codex', '--', process.execPath, codexAgent], {
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
    });
    expect(c.code, c.stderr).toBe(0);
    const cs = await sessionTitled('codex like');
    expect(cs).toMatchObject({ provider_conversation: thread, status: 'stopped' });
    const runtime = ((await api(`/api/v1/sessions/${cs.id}/events`)).events as any[]).map((e) => e.type).filter((t) => ['idle', 'exited', 'error'].includes(t));
    // the turn's idle lands before the process's exited, never after it
    expect(runtime).toEqual(['idle', 'exited']);
  });
});
