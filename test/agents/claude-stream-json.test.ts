/**
 * Claude Code's headless input protocol, which a runner must speak to deliver into it
 * (docs/design/agent-clis.md): a stream-json user line is a turn and fires UserPromptSubmit
 * with its exact text; a line in any other shape (such as the inbox JSON an early `warrant run
 * --inbox` wrote, before it had an input adapter) is dropped without a word — no turn, no hook, exit 0.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAPTURE_HOOK, CLAUDE_BIN, readCaptured, scratchDir, setupClaude } from './agent-clis.js';
import { startModelEndpoint, when } from './model-endpoint.js';
import { projectIn, warrantForSuite } from './warrant-run.js';

const STREAM_ARGS = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'];

describe('Claude Code stream-json input under warrant run', () => {
  const warrant = warrantForSuite();

  async function feed(title: string, lines: unknown[]) {
    const dir = scratchDir('stream');
    const project = projectIn(dir);
    mkdirSync(project, { recursive: true });
    const endpoint = await startModelEndpoint([{ when: when.userSays('FOLLOW-UP'), reply: { text: 'taken' } }], { defaultText: 'taken too' });
    const captureFile = join(dir, 'hooks.jsonl');
    try {
      const env = {
        ...setupClaude({ project, endpointUrl: endpoint.url, hooks: { UserPromptSubmit: [`"${process.execPath}" "${CAPTURE_HOOK}" UserPromptSubmit`] } }),
        CAPTURE_FILE: captureFile,
      };
      const input = lines.map((l) => JSON.stringify(l) + '\n').join('');
      const run = await warrant.run(title, [CLAUDE_BIN, ...STREAM_ARGS], { cwd: project, env, input, extraArgs: ['--provider', 'claude-code'] });
      const out = run.stdout
        .split('\n')
        .filter((l) => l.trim().startsWith('{'))
        .map((l) => JSON.parse(l));
      return { run, out, prompts: readCaptured(captureFile).map((h) => h.payload.prompt as string), modelRequests: endpoint.modelRequests.length };
    } finally {
      await endpoint.close();
    }
  }

  it('each user line is a turn: UserPromptSubmit reports its exact text (content as blocks or as a string)', async () => {
    const r = await feed('stream user lines', [
      { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'FOLLOW-UP one:\nkeep the tests green' }] } },
      { type: 'user', message: { role: 'user', content: 'FOLLOW-UP two' } },
    ]);
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.prompts).toEqual(['FOLLOW-UP one:\nkeep the tests green', 'FOLLOW-UP two']);
    expect(r.modelRequests).toBe(2);
    expect(r.out.filter((o) => o.type === 'result').length).toBe(2);
  });

  it('an inbox JSON line is silently ignored: no turn, no prompt hook, exit 0 (beside the positive control above)', async () => {
    const r = await feed('stream inbox line', [{ item_id: 7, kind: 'message', mode: 'queue', format: 'warrant-frame', text: 'FOLLOW-UP never seen' }]);
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.prompts).toEqual([]);
    expect(r.modelRequests).toBe(0);
  });
});
