/**
 * The real Claude Code CLI (pinned) under `warrant run`, headless, against the scripted model
 * endpoint: the Warrant MCP tools are callable with no permission prompt when the allow rule
 * is in force, and refused when it is not (docs/design/agent-clis.md).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAPTURE_HOOK, CLAUDE_BIN, readCaptured, scratchDir, setupClaude, warrantHookCommand, warrantMcpCommand } from './agent-clis.js';
import { startModelEndpoint, when, type ModelEndpoint } from './model-endpoint.js';
import { projectIn, warrantForSuite } from './warrant-run.js';

const WARRANT_MCP = {
  ...warrantMcpCommand(),
  // Claude Code expands ${VAR} from its own environment (which `warrant run` set)
  env: { WARRANT_URL: '${WARRANT_URL}', WARRANT_SESSION_TOKEN: '${WARRANT_SESSION_TOKEN}' },
};

/** Warrant's hook entry point (as `warrant integrate` writes it) on four events, each beside a capturing hook. */
function hooksWithCapture(): Record<string, string[]> {
  const events = ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd'];
  return Object.fromEntries(events.map((e) => [e, [warrantHookCommand('claude-code'), `"${process.execPath}" "${CAPTURE_HOOK}" ${e}`]]));
}

/** A model that calls get_session once and then ends the turn. */
function getSessionScript(prompt: string, callId: string) {
  return [
    { name: 'call get_session', when: when.userSays(prompt), reply: { tool: 'mcp__warrant__get_session', input: {}, id: callId } },
    { name: 'finish', when: when.resultOf(callId), reply: { text: 'I read my session.' } },
  ];
}

describe('Claude Code 2.1.332 under warrant run (headless -p)', () => {
  const warrant = warrantForSuite();

  async function runClaude(title: string, setup: { allow?: string[]; userAllow?: string[]; trusted?: boolean }) {
    const dir = scratchDir('claude');
    const project = projectIn(dir);
    const prompt = `Read your Warrant session (${title}).`;
    const callId = `toolu_${title.replace(/\W/g, '')}`;
    const endpoint: ModelEndpoint = await startModelEndpoint(getSessionScript(prompt, callId));
    try {
      const { mkdirSync } = await import('node:fs');
      mkdirSync(project, { recursive: true });
      const captureFile = join(dir, 'hooks.jsonl');
      const env = {
        ...setupClaude({ project, endpointUrl: endpoint.url, hooks: hooksWithCapture(), mcpServers: { warrant: WARRANT_MCP }, ...setup }),
        CAPTURE_FILE: captureFile,
      };
      const run = await warrant.run(title, [CLAUDE_BIN, '-p', prompt], { cwd: project, env, extraArgs: ['--provider', 'claude-code'] });
      const result = endpoint.modelRequests.find((r) => r.toolResults.some((t) => t.id === callId));
      return {
        run,
        endpoint,
        toolResult: result?.toolResults.find((t) => t.id === callId)?.text ?? null,
        hooks: readCaptured(captureFile),
        session: await warrant.sessionTitled(title),
      };
    } finally {
      await endpoint.close();
    }
  }

  it('with permissions.allow in a trusted workspace: get_session reaches the server with the session token, no prompt; the session attached authenticated and its conversation is the one Claude reported', async () => {
    const r = await runClaude('claude allowed', { allow: ['mcp__warrant__*'] });
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.endpoint.pending(), 'every scripted step was asked for').toEqual([]);
    // the tool result is the server's answer about this very session: only a call that reached it can know the uid
    expect(r.toolResult).toContain(r.session.uid);
    expect(r.toolResult).not.toMatch(/haven't granted/);

    expect(r.session).toMatchObject({ title: 'claude allowed', status: 'stopped', creator: { kind: 'human', ref: 'ada' }, creator_basis: 'authenticated' });
    const events = (await warrant.get(`/api/v1/sessions/${r.session.id}/events`)).events as any[];
    const attached = events.filter((e) => e.type === 'attached');
    expect(attached).toHaveLength(1);
    expect(attached[0].actor.basis).toBe('authenticated');

    const start = r.hooks.find((h) => h.label === 'SessionStart');
    expect(start?.payload).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup' });
    // the hook ran inside the session: the runner's identity reached it through Claude's environment
    expect(start?.env.WARRANT_SESSION_ID).toBe(String(r.session.id));
    const conversations = (await warrant.get(`/api/v1/sessions/${r.session.id}/conversations`)).conversations as any[];
    expect(conversations.map((c) => [c.provider, c.conversation_id])).toContainEqual(['claude-code', start!.payload.session_id]);
  });

  it('the same rule in the user settings works in an untrusted workspace (the headless-fleet route)', async () => {
    const r = await runClaude('claude user allow', { userAllow: ['mcp__warrant__*'], trusted: false });
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.toolResult).toContain(r.session.uid);
  });

  it('without an allow rule the call is refused headlessly and never reaches the server (beside the positive control above)', async () => {
    const r = await runClaude('claude no allow', {});
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.toolResult).toMatch(/requested permissions to use mcp__warrant__get_session, but you haven't granted it yet/);
    expect(r.toolResult).not.toContain(r.session.uid);
  });

  it('a project allow rule in an untrusted workspace is ignored, and Claude says so on stderr', async () => {
    const r = await runClaude('claude untrusted', { allow: ['mcp__warrant__*'], trusted: false });
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.run.stderr).toMatch(/Ignoring 1 permissions\.allow entry from \.claude\/settings\.json: this workspace has not been trusted/);
    expect(r.toolResult).toMatch(/haven't granted it yet/);
    expect(r.toolResult).not.toContain(r.session.uid);
  });
});
