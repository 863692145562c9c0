/**
 * A nested `claude` the model starts itself (through its Bash tool, without `warrant run`):
 * its hooks run with the outer session's Warrant identity inherited, under a different
 * provider session_id, and its Stop comes before the outer one — the case the runner must
 * treat as a child, never as the parent going idle (docs/design/agent-clis.md).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAPTURE_HOOK, CLAUDE_BIN, readCaptured, scratchDir, setupClaude } from './agent-clis.js';
import { startModelEndpoint, when } from './model-endpoint.js';
import { projectIn, warrantForSuite } from './warrant-run.js';

describe('a nested claude started by the model', () => {
  const warrant = warrantForSuite();

  it("reports through the same hooks with the outer session's token but its own session_id; its Stop precedes the outer Stop", async () => {
    const dir = scratchDir('nested');
    const project = projectIn(dir);
    mkdirSync(project, { recursive: true });
    const endpoint = await startModelEndpoint([
      {
        name: 'outer runs claude',
        when: when.userSays('OUTER TASK'),
        reply: { tool: 'Bash', input: { command: `"${CLAUDE_BIN}" -p "NESTED TASK"`, description: 'run a nested claude' }, id: 'toolu_bash' },
      },
      { name: 'nested answers', when: when.userSays('NESTED TASK'), reply: { text: 'nested reply' } },
      { name: 'outer finishes', when: when.resultOf('toolu_bash'), reply: { text: 'outer done' } },
    ]);
    const captureFile = join(dir, 'hooks.jsonl');
    try {
      const capture = (e: string) => `"${process.execPath}" "${CAPTURE_HOOK}" ${e}`;
      const env = {
        ...setupClaude({
          project,
          endpointUrl: endpoint.url,
          allow: ['Bash'],
          hooks: { SessionStart: [capture('SessionStart')], UserPromptSubmit: [capture('UserPromptSubmit')], Stop: [capture('Stop')] },
        }),
        CAPTURE_FILE: captureFile,
      };
      const run = await warrant.run('outer claude', [CLAUDE_BIN, '-p', 'OUTER TASK'], { cwd: project, env, extraArgs: ['--provider', 'claude-code'] });
      expect(run.code, run.stderr).toBe(0);
      expect(endpoint.pending()).toEqual([]);
      expect(endpoint.modelRequests.flatMap((r) => r.toolResults).find((t) => t.id === 'toolu_bash')?.text).toContain('nested reply');
    } finally {
      await endpoint.close();
    }
    const session = await warrant.sessionTitled('outer claude');
    const hooks = readCaptured(captureFile);
    const outer = hooks.find((h) => h.label === 'UserPromptSubmit' && h.payload.prompt === 'OUTER TASK')!.payload.session_id;
    const nested = hooks.find((h) => h.label === 'UserPromptSubmit' && h.payload.prompt === 'NESTED TASK')!.payload.session_id;
    expect(nested).not.toBe(outer);
    // every hook, outer or nested, sees the outer Warrant session's identity
    for (const h of hooks) expect([h.label, h.env.WARRANT_SESSION_ID], h.payload.session_id).toEqual([h.label, String(session.id)]);
    const stops = hooks.filter((h) => h.label === 'Stop').map((h) => h.payload.session_id);
    expect(stops).toEqual([nested, outer]);
    expect(hooks.filter((h) => h.label === 'SessionStart').map((h) => h.payload.session_id)).toEqual([outer, nested]);
  });
});
