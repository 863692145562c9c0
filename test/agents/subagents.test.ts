/**
 * Built-in subagents of the real CLIs under `warrant run` (docs/design/agent-clis.md): what the
 * SubagentStart/SubagentStop hooks carry, where the transcripts are, and that a subagent's MCP
 * call reaches Warrant with the parent process's session token (so it is recorded as the
 * parent's act).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAPTURE_HOOK, CLAUDE_BIN, CODEX_JS, readCaptured, scratchDir, setupClaude, setupCodex, warrantMcpCommand, type CapturedHook } from './agent-clis.js';
import { startModelEndpoint, when, type Step } from './model-endpoint.js';
import { projectIn, warrantForSuite } from './warrant-run.js';

const capture = (label: string) => `"${process.execPath}" "${CAPTURE_HOOK}" ${label}`;
const EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'SubagentStart', 'SubagentStop', 'Stop', 'SessionEnd'];

function jsonLines(file: string): any[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

const byLabel = (hooks: CapturedHook[], label: string) => hooks.filter((h) => h.label === label);

describe('built-in subagents under warrant run', () => {
  const warrant = warrantForSuite();

  it("Claude Code's Agent tool: SubagentStart/Stop carry agent_id under the parent's session_id; the subagent's MCP call is answered for the parent's session; both transcripts are written", async () => {
    const dir = scratchDir('claude-sub');
    const project = projectIn(dir);
    mkdirSync(project, { recursive: true });
    const steps: Step[] = [
      {
        name: 'spawn',
        when: when.userSays('Delegate the check'),
        reply: {
          tool: 'Agent',
          input: { subagent_type: 'general-purpose', description: 'check session', prompt: 'SUBTASK: read the Warrant session' },
          id: 'toolu_spawn',
        },
      },
      { name: 'sub calls get_session', when: when.userSays('SUBTASK: read'), reply: { tool: 'mcp__warrant__get_session', input: {}, id: 'toolu_sub_get' } },
      { name: 'sub finishes', when: when.resultOf('toolu_sub_get'), reply: { text: 'subagent read it' } },
      { name: 'parent after launch', when: when.resultOf('toolu_spawn'), reply: { text: 'launched' } },
    ];
    const endpoint = await startModelEndpoint(steps, { defaultText: 'all done' });
    const captureFile = join(dir, 'hooks.jsonl');
    try {
      const env = {
        ...setupClaude({
          project,
          endpointUrl: endpoint.url,
          hooks: Object.fromEntries(EVENTS.map((e) => [e, [capture(e)]])),
          mcpServers: { warrant: { ...warrantMcpCommand(), env: { WARRANT_URL: '${WARRANT_URL}', WARRANT_SESSION_TOKEN: '${WARRANT_SESSION_TOKEN}' } } },
          allow: ['mcp__warrant__*'],
        }),
        CAPTURE_FILE: captureFile,
      };
      const run = await warrant.run('claude with subagent', [CLAUDE_BIN, '-p', 'Delegate the check'], {
        cwd: project,
        env,
        extraArgs: ['--provider', 'claude-code'],
      });
      expect(run.code, run.stderr).toBe(0);
      expect(endpoint.pending()).toEqual([]);
    } finally {
      await endpoint.close();
    }
    const session = await warrant.sessionTitled('claude with subagent');
    const hooks = readCaptured(captureFile);
    const parentId = byLabel(hooks, 'SessionStart')[0]!.payload.session_id as string;
    const [start] = byLabel(hooks, 'SubagentStart');
    const [stop] = byLabel(hooks, 'SubagentStop');
    expect(start!.payload).toMatchObject({ session_id: parentId, agent_type: 'general-purpose', agent_id: expect.stringMatching(/^a[0-9a-f]+$/) });
    expect(stop!.payload).toMatchObject({ session_id: parentId, agent_id: start!.payload.agent_id, last_assistant_message: 'subagent read it' });
    // the subagent's own tool call is attributed to it in the hook, but runs with the parent's token
    const subCall = byLabel(hooks, 'PreToolUse').find((h) => h.payload.tool_use_id === 'toolu_sub_get');
    expect(subCall!.payload).toMatchObject({ session_id: parentId, agent_id: start!.payload.agent_id, tool_name: 'mcp__warrant__get_session' });
    expect(subCall!.env.WARRANT_SESSION_TOKEN).toMatch(/^wrt_s_/);
    const answered = endpoint.modelRequests.flatMap((r) => r.toolResults).find((t) => t.id === 'toolu_sub_get');
    expect(answered?.text).toContain(session.uid);
    // the background subagent's completion comes back as a prompt nobody typed
    const prompts = byLabel(hooks, 'UserPromptSubmit').map((h) => String(h.payload.prompt));
    expect(prompts[0]).toBe('Delegate the check');
    expect(prompts.slice(1).some((p) => p.startsWith('<task-notification>'))).toBe(true);
    // transcripts: the parent's at transcript_path, the subagent's at agent_transcript_path
    const parentLines = jsonLines(start!.payload.transcript_path);
    expect(parentLines.some((l) => l.type === 'user' && JSON.stringify(l.message).includes('Delegate the check'))).toBe(true);
    expect(stop!.payload.agent_transcript_path).toContain(`/subagents/agent-${start!.payload.agent_id}.jsonl`);
    expect(jsonLines(stop!.payload.agent_transcript_path).some((l) => JSON.stringify(l).includes('SUBTASK: read'))).toBe(true);
  });

  it("Codex's spawn_agent: SubagentStart names the child thread and its rollout; the child's turn events carry agent_id; notify fires for both threads; the child's MCP call is answered for the parent's session", async () => {
    const dir = scratchDir('codex-sub');
    const project = projectIn(dir);
    mkdirSync(project, { recursive: true });
    const steps: Step[] = [
      {
        name: 'spawn',
        when: when.userSays('Delegate the check'),
        reply: { tool: 'multi_agent_v1__spawn_agent', input: { message: 'SUBTASK: read the Warrant session' }, id: 'call_spawn' },
      },
      { name: 'sub calls get_session', when: when.userSays('SUBTASK: read'), reply: { tool: 'mcp__warrant__get_session', input: {}, id: 'call_sub_get' } },
      { name: 'sub finishes', when: when.resultOf('call_sub_get'), reply: { text: 'subagent read it' } },
      {
        name: 'wait',
        when: when.resultOf('call_spawn'),
        reply: (r) => ({
          tool: 'multi_agent_v1__wait_agent',
          input: { targets: [JSON.parse(r.toolResults[0]!.text).agent_id], timeout_ms: 30_000 },
          id: 'call_wait',
        }),
      },
      { name: 'finish', when: when.resultOf('call_wait'), reply: { text: 'all done' } },
    ];
    const endpoint = await startModelEndpoint(steps);
    const captureFile = join(dir, 'hooks.jsonl');
    try {
      const env = {
        ...(await setupCodex({
          project,
          endpointUrl: endpoint.url,
          hooks: Object.fromEntries(EVENTS.map((e) => [e, [capture(e)]])),
          notify: [process.execPath, CAPTURE_HOOK, 'notify'],
          mcpServers: { warrant: { ...warrantMcpCommand(), envVars: ['WARRANT_URL', 'WARRANT_SESSION_TOKEN'] } },
        })),
        CAPTURE_FILE: captureFile,
      };
      const run = await warrant.run('codex with subagent', [process.execPath, CODEX_JS, 'exec', '--skip-git-repo-check', 'Delegate the check'], {
        cwd: project,
        env,
        extraArgs: ['--provider', 'codex'],
      });
      expect(run.code, run.stderr).toBe(0);
      expect(endpoint.pending()).toEqual([]);
    } finally {
      await endpoint.close();
    }
    const session = await warrant.sessionTitled('codex with subagent');
    const hooks = readCaptured(captureFile);
    const parent = byLabel(hooks, 'SessionStart')[0]!.payload;
    const [start] = byLabel(hooks, 'SubagentStart');
    const [stop] = byLabel(hooks, 'SubagentStop');
    const childId = start!.payload.agent_id as string;
    expect(start!.payload).toMatchObject({ session_id: parent.session_id, agent_type: 'default' });
    expect(childId).not.toBe(parent.session_id);
    expect(start!.payload.transcript_path).toContain(childId);
    expect(existsSync(start!.payload.transcript_path)).toBe(true);
    expect(stop!.payload).toMatchObject({
      session_id: parent.session_id,
      agent_id: childId,
      agent_transcript_path: start!.payload.transcript_path,
      last_assistant_message: 'subagent read it',
    });
    const childPrompt = byLabel(hooks, 'UserPromptSubmit').find((h) => h.payload.agent_id === childId);
    expect(childPrompt!.payload).toMatchObject({ session_id: parent.session_id, prompt: 'SUBTASK: read the Warrant session' });
    const notified = byLabel(hooks, 'notify').map((h) => h.payload['thread-id']);
    expect(notified.sort()).toEqual([childId, parent.session_id].sort());
    const answered = endpoint.modelRequests.flatMap((r) => r.toolResults).find((t) => t.id === 'call_sub_get');
    expect(answered?.text).toContain(session.uid);
    // the parent's rollout opens with its session_meta
    expect(jsonLines(parent.transcript_path)[0]).toMatchObject({ type: 'session_meta', payload: { id: parent.session_id } });
  });
});
