/**
 * The real Codex CLI (pinned) under `warrant run`, `codex exec`, against the scripted
 * Responses endpoint. Under `approval_policy = "never"` Codex runs an MCP tool annotated
 * read-only by default, but a writing tool only when the server table says
 * `default_tools_approval_mode = "approve"` (docs/design/agent-clis.md).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE_HOOK, CODEX_JS, readCaptured, requireAgentClis, scratchDir, setupCodex, warrantMcpCommand } from './agent-clis.js';
import { hookArgv } from '../../src/integrations/agent-config.js';
import { startModelEndpoint, when, type Step } from './model-endpoint.js';
import { projectIn, startWarrant, type WarrantFixture } from './warrant-run.js';

const capture = (label: string) => `"${process.execPath}" "${CAPTURE_HOOK}" ${label}`;

describe('Codex 0.171.0 under warrant run (codex exec)', () => {
  let warrant: WarrantFixture;
  let mailbox: { id: number };
  beforeAll(async () => {
    requireAgentClis();
    warrant = await startWarrant();
    // a session the agent writes to: what arrives in its inbox can only have come through the server
    mailbox = (await warrant.post('/api/v1/sessions', { title: 'mailbox' })).session;
  });
  afterAll(async () => {
    await warrant?.stop();
  });

  async function runCodex(title: string, options: { approve: boolean; trustHooks?: boolean; captureNotify?: boolean }) {
    const dir = scratchDir('codex');
    const project = projectIn(dir);
    mkdirSync(project, { recursive: true });
    const prompt = `Read your Warrant session and write to the mailbox (${title}).`;
    const key = title.replace(/\W/g, '');
    const marker = `marker-${key}-${Date.now()}`;
    const steps: Step[] = [
      { name: 'get_session', when: when.userSays(prompt), reply: { tool: 'mcp__warrant__get_session', input: {}, id: `call_get_${key}` } },
      {
        name: 'send_message',
        when: when.resultOf(`call_get_${key}`),
        reply: { tool: 'mcp__warrant__send_message', input: { to: mailbox.id, payload: marker }, id: `call_send_${key}` },
      },
      { name: 'finish', when: when.resultOf(`call_send_${key}`), reply: { text: 'Done.' } },
    ];
    const endpoint = await startModelEndpoint(steps);
    try {
      const captureFile = join(dir, 'hooks.jsonl');
      const env = {
        ...(await setupCodex({
          project,
          endpointUrl: endpoint.url,
          mcpServers: { warrant: { ...warrantMcpCommand(), envVars: ['WARRANT_URL', 'WARRANT_SESSION_TOKEN'], approve: options.approve } },
          hooks: { SessionStart: [capture('SessionStart')], Stop: [capture('Stop')] },
          notify: options.captureNotify ? [process.execPath, CAPTURE_HOOK, 'notify'] : hookArgv('codex'),
          trustHooks: options.trustHooks ?? true,
        })),
        CAPTURE_FILE: captureFile,
      };
      const run = await warrant.run(title, [process.execPath, CODEX_JS, 'exec', '--skip-git-repo-check', prompt], {
        cwd: project,
        env,
        extraArgs: ['--provider', 'codex'],
      });
      const resultOf = (id: string) => endpoint.modelRequests.flatMap((r) => r.toolResults).find((t) => t.id === id)?.text ?? null;
      const inbox = (await warrant.get(`/api/v1/sessions/${mailbox.id}/inbox`)).items as any[];
      return {
        run,
        endpoint,
        getResult: resultOf(`call_get_${key}`),
        sendResult: resultOf(`call_send_${key}`),
        delivered: inbox.filter((i) => JSON.stringify(i).includes(marker)),
        hooks: readCaptured(captureFile),
        session: await warrant.sessionTitled(title),
      };
    } finally {
      await endpoint.close();
    }
  }

  it('with default_tools_approval_mode = "approve": both calls reach the server with the session token; the session attached authenticated; trusted hooks ran inside the session', async () => {
    const r = await runCodex('codex approved', { approve: true });
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.endpoint.pending()).toEqual([]);
    // `required = true`: the first turn waited for the Warrant MCP server instead of starting without its tools
    expect(r.endpoint.modelRequests[0]!.toolNames).toContain('mcp__warrant__get_session');
    expect(r.getResult).toContain(r.session.uid);
    expect(r.delivered).toHaveLength(1);
    expect(r.delivered[0].sender_session_id).toBe(r.session.id); // sent as the agent's own session
    expect(r.session).toMatchObject({ status: 'stopped', creator: { kind: 'human', ref: 'ada' }, creator_basis: 'authenticated' });
    const events = (await warrant.get(`/api/v1/sessions/${r.session.id}/events`)).events as any[];
    const attached = events.filter((e) => e.type === 'attached');
    expect(attached).toHaveLength(1);
    expect(attached[0].actor.basis).toBe('authenticated');
    const start = r.hooks.find((h) => h.label === 'SessionStart');
    expect(start?.payload).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup' });
    expect(start?.env.WARRANT_SESSION_ID).toBe(String(r.session.id));
    expect(r.hooks.map((h) => h.label)).toContain('Stop');
  });

  it('without it the read-only get_session still runs, but send_message is refused and nothing reaches the mailbox (beside the positive control above)', async () => {
    const r = await runCodex('codex not approved', { approve: false });
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.getResult).toContain(r.session.uid);
    expect(r.sendResult).toMatch(/MCP tool call requires approval, but approval policy is never/);
    expect(r.delivered).toEqual([]);
  });

  it('hooks Codex has not recorded as trusted never run, silently; notify needs no trust (beside the trusted run above)', async () => {
    const r = await runCodex('codex untrusted hooks', { approve: true, trustHooks: false, captureNotify: true });
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.getResult).toContain(r.session.uid);
    expect(r.hooks.map((h) => h.label)).toEqual(['notify']);
    expect(r.hooks[0]!.payload).toMatchObject({ type: 'agent-turn-complete', 'input-messages': [expect.stringContaining('codex untrusted hooks')] });
  });
});
