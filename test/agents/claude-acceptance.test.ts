/**
 * Issue 16's acceptance for headless Claude Code, against the real CLI and the real wiring: a
 * scratch project configured only by `warrant integrate claude-code --write`, the agent under
 * `warrant run`, and every claim read back from the ledger through the REST API.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_BIN, scratchDir } from './agent-clis.js';
import { integratedClaude, ledger } from './integrated.js';
import { startModelEndpoint, when } from './model-endpoint.js';
import { projectIn, warrantForSuite } from './warrant-run.js';

describe('Claude Code under warrant run, wired only by warrant integrate', () => {
  const warrant = warrantForSuite();

  it('with no permission flag a Warrant MCP tool reaches the server; the Agent subagent is a child session (authenticated spawn, agent_root = its type, conversation = agent_id, stopped); both have transcript records', async () => {
    const dir = scratchDir('acc-claude');
    const project = projectIn(dir);
    const endpoint = await startModelEndpoint(
      [
        { name: 'get_session', when: when.userSays('ACCEPTANCE TASK'), reply: { tool: 'mcp__warrant__get_session', input: {}, id: 'toolu_acc_get' } },
        {
          name: 'spawn',
          when: when.resultOf('toolu_acc_get'),
          reply: { tool: 'Agent', input: { subagent_type: 'general-purpose', description: 'say hello', prompt: 'SUBTASK: say hello' }, id: 'toolu_acc_spawn' },
        },
        { name: 'subagent answers', when: when.userSays('SUBTASK: say hello'), reply: { text: 'hello from the subagent' } },
        { name: 'parent after launch', when: when.resultOf('toolu_acc_spawn'), reply: { text: 'launched' } },
      ],
      { defaultText: 'all done' },
    );
    try {
      const env = await integratedClaude(project, endpoint.url);
      const run = await warrant.run('acceptance claude', [CLAUDE_BIN, '-p', 'ACCEPTANCE TASK'], {
        cwd: project,
        env,
        extraArgs: ['--provider', 'claude-code'],
      });
      expect(run.code, run.stderr).toBe(0);
      expect(endpoint.pending(), 'every scripted step was asked for').toEqual([]);
    } finally {
      await endpoint.close();
    }
    const api = ledger(warrant);
    const session = await warrant.sessionTitled('acceptance claude');
    const results = endpoint.modelRequests.flatMap((r) => r.toolResults);
    // (a) only a call that reached the server can know this session's uid
    const got = results.find((t) => t.id === 'toolu_acc_get')!.text;
    expect(got).toContain(session.uid);
    expect(got).not.toMatch(/haven't granted/);
    const attached = (await api.events(session.id)).filter((e) => e.type === 'attached');
    expect(attached.map((e) => e.actor.basis)).toEqual(['authenticated']);

    // (b) the subagent's agent_id, as Claude told the model
    const launched = results.find((t) => t.id === 'toolu_acc_spawn')!.text;
    const agentId = /agentId: (a[0-9a-f]+)/.exec(launched)?.[1];
    expect(agentId, launched).toBeDefined();
    const children = await api.children(session.id);
    expect(children).toHaveLength(1);
    const child = await api.session(children[0].id);
    expect(child).toMatchObject({
      parent_session_id: session.id,
      parent_basis: 'authenticated',
      creator: { kind: 'session', ref: String(session.id) },
      creator_basis: 'authenticated',
      agent_root: 'general-purpose',
      provider: 'claude-code',
      provider_conversation: agentId,
      runtime_parent_id: session.id,
      runtime_origin: 'subagent',
      status: 'stopped',
    });
    const childConversations = await api.conversations(child.id);
    expect(childConversations.map((c) => [c.provider, c.conversation_id])).toEqual([['claude-code', agentId]]);
    // the parent's own conversation is Claude's session id, not the subagent's
    const own = await api.conversations(session.id);
    expect(own.map((c) => c.conversation_id)).not.toContain(agentId);
    expect(own).toHaveLength(1);
    expect(session).toMatchObject({ status: 'stopped', provider_conversation: own[0].conversation_id });

    // (c) transcripts: the session's lines and the subagent's, after the run
    const transcript = await api.transcript(session.id);
    expect(transcript.length).toBeGreaterThan(0);
    expect(new Set(transcript.map((r) => r.conversation_id))).toEqual(new Set([own[0].conversation_id]));
    expect(JSON.stringify(transcript)).toContain('ACCEPTANCE TASK');
    const childTranscript = await api.transcript(child.id);
    expect(childTranscript.length).toBeGreaterThan(0);
    expect(JSON.stringify(childTranscript)).toContain('SUBTASK: say hello');
  });
  it("the agent's environment holds no store path, fleet key, database URL or human token (its own session identity does reach it), and a store command run through its Bash tool is refused inside-agent-session while the same command without the session token runs", async () => {
    const dir = scratchDir('acc-boundary');
    const project = projectIn(dir);
    const envFile = join(dir, 'agent-env.txt');
    const node = process.execPath;
    const issue = `"${node}" "$WARRANT_CLI" users tokens issue ada --json --data-dir "${warrant.server.dataDir}"`;
    // one Bash call: the env as the agent's tools see it, the refusal, and its control (the guard removed by hand)
    const command = [`env > "${envFile}"`, `${issue} 2>&1; echo "INSIDE_EXIT=$?"`, `env -u WARRANT_SESSION_TOKEN ${issue} 2>&1; echo "OUTSIDE_EXIT=$?"`].join(
      '; ',
    );
    const endpoint = await startModelEndpoint([
      { name: 'bash', when: when.userSays('BOUNDARY TASK'), reply: { tool: 'Bash', input: { command, description: 'look around' }, id: 'toolu_acc_bash' } },
      { name: 'finish', when: when.resultOf('toolu_acc_bash'), reply: { text: 'looked' } },
    ]);
    const seeded = {
      WARRANT_DATA_DIR: warrant.server.dataDir,
      WARRANT_FLEET_KEY: warrant.server.fleetKey,
      DATABASE_URL: 'postgres://postgres:secret@127.0.0.1:5432/warrant',
      PGHOST: '127.0.0.1',
      PGPASSWORD: 'pg-secret-value',
      // a token under a name the runner does not know is dropped by its value
      SOME_OTHER_NAME: warrant.humanToken,
      // an ordinary variable passes through: the control for the ones dropped
      ACCEPTANCE_MARKER: 'kept-through',
    };
    let bashResult: string;
    try {
      const env = { ...(await integratedClaude(project, endpoint.url)), ...seeded };
      // the Bash tool needs its own allow rule headlessly; it grants nothing for Warrant's tools
      const run = await warrant.run('acceptance boundary', [CLAUDE_BIN, '-p', 'BOUNDARY TASK', '--allowedTools', 'Bash'], {
        cwd: project,
        env,
        extraArgs: ['--provider', 'claude-code'],
      });
      expect(run.code, run.stderr).toBe(0);
      expect(endpoint.pending()).toEqual([]);
      bashResult = endpoint.modelRequests.flatMap((r) => r.toolResults).find((t) => t.id === 'toolu_acc_bash')!.text;
    } finally {
      await endpoint.close();
    }
    const session = await warrant.sessionTitled('acceptance boundary');
    const agentEnv = Object.fromEntries(
      readFileSync(envFile, 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    // positive: the session's own identity and the ordinary variable
    expect(agentEnv).toMatchObject({
      WARRANT_SESSION_ID: String(session.id),
      WARRANT_SESSION_UID: session.uid,
      WARRANT_URL: warrant.server.url,
      ACCEPTANCE_MARKER: 'kept-through',
    });
    expect(agentEnv.WARRANT_SESSION_TOKEN).toMatch(/^wrt_s_/);
    expect(agentEnv.WARRANT_CLI).toMatch(/dist\/cli\/main\.js$/);
    // negative: nothing of the host's
    for (const name of ['WARRANT_DATA_DIR', 'WARRANT_FLEET_KEY', 'WARRANT_TOKEN', 'DATABASE_URL', 'PGHOST', 'PGPASSWORD', 'SOME_OTHER_NAME'])
      expect(agentEnv[name], name).toBeUndefined();
    const whole = readFileSync(envFile, 'utf8');
    for (const secret of [warrant.server.fleetKey, warrant.humanToken, 'pg-secret-value', warrant.server.dataDir])
      expect(whole.includes(secret), secret).toBe(false);

    expect(bashResult).toMatch(/inside-agent-session/);
    expect(bashResult).toContain('INSIDE_EXIT=2');
    // the control: the very same command, the guard removed, issued a token (the guard is not the boundary)
    expect(bashResult).toContain('OUTSIDE_EXIT=0');
    expect(bashResult).toMatch(/"token":\s*"wrt_h_/);
  });
});
