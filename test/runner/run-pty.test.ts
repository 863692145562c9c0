import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn as spawnPty, type IPty } from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, startServer, type ServerProcess } from '../helpers/server-process.js';

const HOOK = resolve(import.meta.dirname, '../../dist/hook/hook-main.cjs');

/**
 * A stand-in for an agent TUI: raw mode, a one-line editor that takes bracketed pastes, Enter
 * submits (its prompt hook reports the line through the runner socket, as Claude Code's does),
 * a Stop hook after each turn, and "exit" ends it with status 7.
 */
const FAKE_TUI = `
import { execFileSync } from 'node:child_process';
const report = (payload) => execFileSync(process.execPath, [${JSON.stringify(HOOK)}, 'claude-code'], { input: JSON.stringify({ session_id: 'tui-conversation', cwd: process.cwd(), ...payload }) });
process.stdin.setRawMode(true);
report({ hook_event_name: 'SessionStart', source: 'startup' });
process.stdout.write('size ' + process.stdout.columns + 'x' + process.stdout.rows + ' term ' + process.env.TERM + ' tty ' + process.stdin.isTTY + '\\r\\nready\\r\\n');
process.on('SIGWINCH', () => process.stdout.write('resized ' + process.stdout.columns + 'x' + process.stdout.rows + '\\r\\n'));
let line = '';
process.stdin.on('data', (d) => {
  const text = d.toString().replaceAll('\\u001b[200~', '').replaceAll('\\u001b[201~', '');
  for (const ch of text) {
    if (ch !== '\\r') { line += ch; continue; }
    const prompt = line;
    line = '';
    report({ hook_event_name: 'UserPromptSubmit', prompt });
    process.stdout.write('got: ' + prompt + '\\r\\n');
    if (prompt === 'exit') process.exit(7);
    report({ hook_event_name: 'Stop', stop_hook_active: false });
  }
});
`;

describe('warrant run on a terminal: the agent under the runner PTY, inbox items typed in and acknowledged by its prompt hook', () => {
  let server: ServerProcess;
  const dir = mkdtempSync(join(tmpdir(), 'warrant-run-pty-'));
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${server.fleetKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return r.json();
  };
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('size, TERM, resize and exit status pass through; a follow-up is typed in as one paste and delivered only once the hook reported it', async () => {
    const script = join(dir, 'fake-tui.mjs');
    writeFileSync(script, FAKE_TUI);
    let screen = '';
    const term: IPty = spawnPty(process.execPath, [CLI, 'run', '--title', 'tui agent', '--provider', 'claude-code', '--', process.execPath, script], {
      name: 'xterm-256color',
      cols: 100,
      rows: 30,
      env: { ...process.env, TERM: 'xterm-256color', WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey, WARRANT_SESSION_TOKEN: '' },
    });
    term.onData((d) => (screen += d));
    const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
    const until = async (what: () => boolean | Promise<boolean>, label: string) => {
      while (!(await what())) {
        if (term.pid && screen.includes('warrant run: could not')) throw new Error(`${label}: ${screen}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await until(() => screen.includes('ready'), 'agent ready');
    expect(screen).toContain('size 100x30 term xterm-256color tty true');
    term.resize(120, 40);
    await until(() => screen.includes('resized 120x40'), 'resize');

    const session = (await api('GET', '/api/v1/sessions?q=tui%20agent')).sessions[0];
    expect(session.status).toBe('running');
    await api('POST', `/api/v1/sessions/${session.id}/follow_up`, { content: 'please check the deploy' });
    await until(() => screen.includes('got: please check the deploy'), 'follow-up typed in');
    await until(async () => (await api('GET', `/api/v1/sessions/${session.id}/inbox?state=all`)).items[0]?.state === 'delivered', 'delivered');

    // the person's own keys still reach the agent; the exit status passes through
    term.write('exit\r');
    expect(await exited).toBe(7);
    expect((await api('GET', `/api/v1/sessions/${session.id}`)).session.status).toBe('failed');
    // a run on a person's terminal is a capture channel Warrant does not witness yet: a gap, never "none"
    const gate = await api('GET', `/api/v1/sessions/${session.id}/warrant`);
    expect(gate.answer).toBe('cannot-say');
    expect(gate.gaps.map((g: any) => g.kind)).toContain('terminal-unwitnessed');
    // the conversation the agent's SessionStart named is the session's
    expect((await api('GET', `/api/v1/sessions/${session.id}`)).session.provider_conversation).toBe('tui-conversation');
  });
});
