/**
 * What a hook's stdout does in the real CLIs (docs/design/agent-clis.md): plain text printed by
 * a SessionStart or UserPromptSubmit hook is added to what the model reads, in both Claude
 * Code and Codex; a `{"systemMessage": …}` JSON line is not. So a Warrant hook may only ever
 * print the JSON form.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_BIN, CODEX_JS, requireAgentClis, runToEnd, scratchDir, setupClaude, setupCodex } from './agent-clis.js';
import { startModelEndpoint } from './model-endpoint.js';

const PRINT_HOOK = join(import.meta.dirname, 'print-hook.mjs');
const EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop'] as const;

/** Runs the CLI once with each hook printing `print(event)`; returns what the model was sent. */
async function modelInput(cli: 'claude' | 'codex', print: (event: string) => string): Promise<string> {
  const dir = scratchDir(`hook-out-${cli}`);
  const project = join(dir, 'project');
  mkdirSync(project, { recursive: true });
  const endpoint = await startModelEndpoint([]);
  try {
    const hooks = Object.fromEntries(EVENTS.map((e) => [e, [`"${process.execPath}" "${PRINT_HOOK}" ${JSON.stringify(print(e))}`]]));
    const r =
      cli === 'claude'
        ? await runToEnd(CLAUDE_BIN, ['-p', 'hello'], { cwd: project, env: setupClaude({ project, endpointUrl: endpoint.url, hooks }) })
        : await runToEnd(process.execPath, [CODEX_JS, 'exec', '--skip-git-repo-check', 'hello'], {
            cwd: project,
            env: await setupCodex({ project, endpointUrl: endpoint.url, hooks }),
          });
    expect(r.code, r.stderr).toBe(0);
    expect(endpoint.modelRequests.length).toBeGreaterThan(0);
    return JSON.stringify(endpoint.modelRequests.map((m) => m.body));
  } finally {
    await endpoint.close();
  }
}

describe('hook stdout and the model', () => {
  beforeAll(() => requireAgentClis());

  for (const cli of ['claude', 'codex'] as const) {
    it(`${cli}: plain stdout of SessionStart and UserPromptSubmit reaches the model; a systemMessage JSON does not`, async () => {
      const plain = await modelInput(cli, (e) => `PLAIN-FROM-${e}`);
      expect(plain).toContain('PLAIN-FROM-SessionStart');
      expect(plain).toContain('PLAIN-FROM-UserPromptSubmit');
      const json = await modelInput(cli, (e) => JSON.stringify({ systemMessage: `SYSTEM-FROM-${e}` }));
      expect(json).not.toMatch(/SYSTEM-FROM-/);
    });
  }
});
