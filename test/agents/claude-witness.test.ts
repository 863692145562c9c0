/**
 * Issue 18's terminal witness against the real Claude Code, wired only by `warrant integrate`:
 * words a person types through a PTY become exactly one `cli.terminal_prompt` human message and
 * the gate says `here`; a turn edited with the cursor keys or recalled from history records
 * nothing (`cannot-say`); a
 * headless `claude -p "…"` typed on a terminal is a gap unless it came through `--prompt`.
 */
import { describe, expect, it } from 'vitest';
import { terminalGapOf as gapOf, terminalGaps as gapsOf } from '../helpers/terminal-gaps.js';
import { runCli } from '../helpers/server-process.js';
import { CLAUDE_BIN, runInPty, scratchDir, WARRANT_CLI } from './agent-clis.js';
import { integratedClaude } from './integrated.js';
import { startModelEndpoint, when } from './model-endpoint.js';
import { projectIn, warrantForSuite } from './warrant-run.js';

describe('the terminal witness with the real Claude Code', () => {
  const warrant = warrantForSuite();
  const messagesOf = async (id: number) => (await warrant.get(`/api/v1/sessions/${id}/provenance`)).human_messages.entries as any[];
  const terminalGaps = (id: number) => gapsOf((p) => warrant.get(p), id);
  const terminalGapOf = (id: number) => gapOf((p) => warrant.get(p), id);
  const check = (id: number) => runCli(['check', String(id)], { env: { WARRANT_URL: warrant.server.url, WARRANT_TOKEN: warrant.server.fleetKey } });

  async function interactive(title: string, keys: { wait: number; send: string; until?: string }[], replies: { name: string; says: string; text: string }[]) {
    const dir = scratchDir('witness');
    const project = projectIn(dir);
    const endpoint = await startModelEndpoint(replies.map((r) => ({ name: r.name, when: when.userSays(r.says), reply: { text: r.text } })));
    try {
      const env = {
        ...(await integratedClaude(project, endpoint.url)),
        TERM: 'xterm-256color',
        WARRANT_URL: warrant.server.url,
        WARRANT_TOKEN: warrant.humanToken,
      };
      const screen = await runInPty([process.execPath, WARRANT_CLI, 'run', '--title', title, '--provider', 'claude-code', '--', CLAUDE_BIN], {
        cwd: project,
        env,
        steps: [{ wait: 30, until: 'auto mode on', send: '' }, ...keys],
        linger: 3,
      });
      expect(screen.stdout).not.toMatch(/not witnessed/);
      expect(endpoint.pending(), screen.stdout).toEqual([]);
      return { screen, session: await warrant.sessionTitled(title) };
    } finally {
      await endpoint.close();
    }
  }

  it('typed words through the PTY are exactly one cli.terminal_prompt message with those words, and the gate says here', async () => {
    const { session } = await interactive(
      'witnessed claude',
      [
        { wait: 1, send: 'fix the flaky test' },
        { wait: 0.5, send: '\r' },
        { wait: 30, until: 'FIXED-REPLY', send: '' },
      ],
      [{ name: 'typed', says: 'fix the flaky test', text: 'FIXED-REPLY' }],
    );
    const messages = await messagesOf(session.id);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ entry_point: 'cli.terminal_prompt', channel: 'cli', content: 'fix the flaky test', witness_isolation: 'same-uid' });
    expect(await terminalGaps(session.id)).toEqual([]);
    const gate = await check(session.id);
    expect(gate.code, gate.stdout + gate.stderr).toBe(0);
  });

  it('a turn edited with the cursor keys, and the same turn recalled from history, reach Claude but record nothing; the gate says cannot-say (exit 5)', async () => {
    const { session } = await interactive(
      'edited claude',
      [
        { wait: 1, send: 'fix the flaky tes' },
        { wait: 0.3, send: '\x1b[D' },
        { wait: 0.3, send: '\x1b[C' },
        { wait: 0.3, send: 't' },
        { wait: 0.5, send: '\r' },
        { wait: 30, until: 'EDITED-REPLY', send: '' },
        // history recall: Up brings the same words back, Enter sends them again
        { wait: 1, send: '\x1b[A' },
        { wait: 0.5, send: '\r' },
        { wait: 30, until: 'RECALLED-REPLY', send: '' },
      ],
      [
        { name: 'edited', says: 'fix the flaky test', text: 'EDITED-REPLY' },
        { name: 'recalled', says: 'fix the flaky test', text: 'RECALLED-REPLY' },
      ],
    );
    expect(await messagesOf(session.id)).toEqual([]);
    expect(await terminalGapOf(session.id)).toHaveLength(1);
    const gate = await check(session.id);
    expect(gate.code, gate.stdout + gate.stderr).toBe(5);
  });

  it('claude -p "…" on a terminal without --prompt is a gap (exit 5, never none); with --prompt it is here, one cli.run_prompt', async () => {
    for (const [title, args, expected] of [
      ['headless bare', ['--', CLAUDE_BIN, '-p', 'check the deploy'], 5],
      ['headless prompt', ['--prompt', 'check the deploy', '--', CLAUDE_BIN, '-p', '{prompt}'], 0],
    ] as const) {
      const dir = scratchDir('witness-headless');
      const project = projectIn(dir);
      const endpoint = await startModelEndpoint([{ name: 'headless', when: when.userSays('check the deploy'), reply: { text: 'DEPLOY-CHECKED' } }]);
      try {
        const env = {
          ...(await integratedClaude(project, endpoint.url)),
          TERM: 'xterm-256color',
          WARRANT_URL: warrant.server.url,
          WARRANT_TOKEN: warrant.humanToken,
        };
        const screen = await runInPty([process.execPath, WARRANT_CLI, 'run', '--title', title, '--provider', 'claude-code', ...args], {
          cwd: project,
          env,
          steps: [{ wait: 60, until: 'DEPLOY-CHECKED', send: '' }],
          linger: 3,
        });
        expect(screen.stdout, title).toContain('DEPLOY-CHECKED');
      } finally {
        await endpoint.close();
      }
      const session = await warrant.sessionTitled(title);
      const messages = await messagesOf(session.id);
      expect(
        messages.map((m) => m.entry_point),
        title,
      ).toEqual(expected === 0 ? ['cli.run_prompt'] : []);
      expect((expected === 0 ? await terminalGaps(session.id) : await terminalGapOf(session.id)).length, title).toBe(expected === 0 ? 0 : 1);
      const gate = await check(session.id);
      expect([title, gate.code]).toEqual([title, expected]);
    }
  });
});
