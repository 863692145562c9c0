/**
 * Interactive Claude Code under `warrant run` in a real pseudo-terminal, as a person runs it
 * (docs/design/agent-clis.md): with onboarding, workspace trust and the API key pre-approved
 * it starts with no dialog; a typed line and Enter fire UserPromptSubmit with exactly the typed
 * words; `/clear` ends the provider session and starts a new one in the same process.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAPTURE_HOOK, CLAUDE_BIN, readCaptured, runInPty, scratchDir, setupClaude, WARRANT_CLI } from './agent-clis.js';
import { startModelEndpoint, when } from './model-endpoint.js';
import { projectIn, warrantForSuite } from './warrant-run.js';

describe('interactive Claude Code in a PTY under warrant run', () => {
  const warrant = warrantForSuite();

  it('typed prompts reach UserPromptSubmit verbatim; /clear gives a new session_id in the same process and is not itself a prompt', async () => {
    const dir = scratchDir('pty');
    const project = projectIn(dir);
    mkdirSync(project, { recursive: true });
    const endpoint = await startModelEndpoint([
      { name: 'first', when: when.userSays('fix the flaky test'), reply: { text: 'FIRST-REPLY' } },
      { name: 'second', when: when.userSays('second words'), reply: { text: 'SECOND-REPLY' } },
    ]);
    const captureFile = join(dir, 'hooks.jsonl');
    const capture = (e: string) => `"${process.execPath}" "${CAPTURE_HOOK}" ${e}`;
    try {
      const env = {
        ...setupClaude({
          project,
          endpointUrl: endpoint.url,
          hooks: Object.fromEntries(['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd'].map((e) => [e, [capture(e)]])),
        }),
        CAPTURE_FILE: captureFile,
        TERM: 'xterm-256color',
        WARRANT_URL: warrant.server.url,
        WARRANT_TOKEN: warrant.humanToken,
      };
      const screen = await runInPty([process.execPath, WARRANT_CLI, 'run', '--title', 'interactive claude', '--provider', 'claude-code', '--', CLAUDE_BIN], {
        cwd: project,
        env,
        steps: [
          { wait: 30, until: 'auto mode on', send: 'fix the flaky test' },
          { wait: 0.5, send: '\r' },
          { wait: 30, until: 'FIRST-REPLY', send: '/clear' },
          { wait: 0.5, send: '\r' },
          { wait: 30, until_file: [captureFile, '"label":"SessionEnd"'], send: '' },
          { wait: 2, send: 'second words' },
          { wait: 0.5, send: '\r' },
          { wait: 30, until: 'SECOND-REPLY', send: '' },
        ],
        linger: 2,
      });
      expect(screen.stdout).not.toMatch(/Do you want to use this API key/);
      expect(screen.stdout).toContain('SECOND-REPLY');
      expect(endpoint.pending()).toEqual([]);
    } finally {
      await endpoint.close();
    }
    const session = await warrant.sessionTitled('interactive claude');
    const hooks = readCaptured(captureFile);
    expect(hooks.filter((h) => h.label === 'UserPromptSubmit').map((h) => h.payload.prompt)).toEqual(['fix the flaky test', 'second words']);
    const starts = hooks.filter((h) => h.label === 'SessionStart').map((h) => h.payload);
    expect(starts.map((p) => p.source)).toEqual(['startup', 'clear']);
    expect(starts[1].session_id).not.toBe(starts[0].session_id);
    expect(hooks.find((h) => h.label === 'SessionEnd')!.payload).toMatchObject({ reason: 'clear', session_id: starts[0].session_id });
    for (const h of hooks) expect(h.env.WARRANT_SESSION_ID).toBe(String(session.id));
  });
});
