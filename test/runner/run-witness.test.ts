import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalGapOf as gapOf, terminalGaps as gapsOf } from '../helpers/terminal-gaps.js';
import { CLI, runCli, startServer, type ServerProcess } from '../helpers/server-process.js';
import { HOOK, openTerminal, WITNESS_TUI } from './witness-pty.js';

/**
 * The terminal witness end to end: a real server, `warrant run` under a real PTY that the test
 * types into, the deterministic stand-in agent firing its prompt hook through the runner socket.
 */
describe('warrant run witnesses what a person types at the agent terminal', () => {
  let server: ServerProcess;
  let humanToken: string;
  beforeAll(async () => {
    server = await startServer();
    const env = { WARRANT_DATA_DIR: server.dataDir };
    await runCli(['users', 'add', 'wendy', '--name', 'Wendy Witness'], { env });
    humanToken = JSON.parse((await runCli(['users', 'tokens', 'issue', 'wendy', '--json'], { env })).stdout).token;
  });
  afterAll(async () => {
    await server?.stop();
  });

  const get = async (path: string) => {
    const r = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.fleetKey}` } });
    return r.json();
  };
  const sessionTitled = async (title: string) => (await get(`/api/v1/sessions?q=${encodeURIComponent(title)}`)).sessions.find((s: any) => s.title === title);
  const messagesOf = async (id: number) => (await get(`/api/v1/sessions/${id}/provenance`)).human_messages.entries as any[];
  const terminalGaps = (id: number) => gapsOf(get, id);
  const terminalGapOf = (id: number) => gapOf(get, id);
  const check = (id: number) => runCli(['check', String(id)], { env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey } });
  const env = (token: string) => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    WARRANT_URL: server.url,
    WARRANT_TOKEN: token,
    WITNESS_TUI_HOOK: HOOK,
  });
  const runTui = (title: string, token = humanToken, extra: string[] = [], agentArgs: string[] = []) =>
    openTerminal(process.execPath, [CLI, 'run', '--title', title, ...extra, '--', process.execPath, WITNESS_TUI, ...agentArgs], env(token));

  it('typed words become exactly one cli.terminal_prompt message with those words (same-uid), the run is witnessed (no terminal gap) and `warrant check` says here', async () => {
    const t = runTui('typed words');
    await t.until('ready');
    const from = t.text().length;
    // a typo corrected with Backspace and a paste are still the person's words
    t.type('check the deplyo');
    t.type('\x7f\x7foy ');
    t.type('\x1b[200~of api-7\x1b[201~');
    t.type(' please\r');
    await t.until('got: check the deploy of api-7 please', { from });
    t.type('\x04');
    expect(await t.exited).toBe(7);
    expect(t.text()).not.toContain('not witnessed');
    const session = await sessionTitled('typed words');
    const messages = await messagesOf(session.id);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      entry_point: 'cli.terminal_prompt',
      channel: 'cli',
      content: 'check the deploy of api-7 please',
      witness_isolation: 'same-uid',
    });
    expect(await terminalGaps(session.id)).toEqual([]);
    const gate = await check(session.id);
    expect(gate.code, gate.stdout + gate.stderr).toBe(0);
    expect(gate.stdout).toMatch(/here/);
  });

  it('the same words reported again after a witnessed turn record nothing more, and the extra report is a terminal gap beside the message', async () => {
    const t = runTui('forged repeat');
    await t.until('ready');
    let from = t.text().length;
    t.type('check the deploy\r');
    await t.until('got: check the deploy', { from });
    from = t.text().length;
    t.type('forge:check the deploy\r');
    await t.until('forged check the deploy', { from });
    t.type('\x04');
    expect(await t.exited).toBe(7);
    const session = await sessionTitled('forged repeat');
    expect((await messagesOf(session.id)).map((m) => m.content)).toEqual(['check the deploy']);
    expect(await terminalGapOf(session.id)).toHaveLength(1);
  });

  it('an edited turn, a forged report, a password typed with echo off and a dialog answer record nothing; the gate says cannot-say (exit 5)', async () => {
    const t = runTui('nothing attributable');
    await t.until('ready');
    let from = t.text().length;
    // the cursor keys edit the line: the runner cannot follow, the agent took something
    t.type('check the deplo\x1b[D\x1b[Cy\r');
    await t.until('got: check the deploy', { from });
    // words nobody typed, reported as a prompt
    from = t.text().length;
    t.type('forge:rotate the keys\r');
    await t.until('forged rotate the keys', { from });
    // a password: echo off; the agent then reports it as a prompt
    from = t.text().length;
    t.type('noecho\r');
    await t.until('echo off', { from });
    from = t.text().length;
    t.type('hunter2\r');
    await t.until('got: hunter2', { from });
    // the agent's own dialog answered with Enter; it fires Stop, then reports the answer as a prompt
    from = t.text().length;
    t.type('ask\r');
    await t.until('Proceed?', { from });
    from = t.text().length;
    t.type('1\r');
    await t.until('answered 1', { from });
    t.type('\x04');
    expect(await t.exited).toBe(7);
    const session = await sessionTitled('nothing attributable');
    expect(await messagesOf(session.id)).toEqual([]);
    expect(await terminalGapOf(session.id)).toHaveLength(1);
    const gate = await check(session.id);
    expect(gate.code, gate.stdout + gate.stderr).toBe(5);
    expect(gate.stdout).toMatch(/cannot.say/i);
  });

  it('a headless prompt on the command line: without --prompt a gap (exit 5), with --prompt one cli.run_prompt and here', async () => {
    const bare = runTui('headless bare', humanToken, [], ['--argprompt', 'check the deploy']);
    expect(await bare.exited).toBe(0);
    const bareSession = await sessionTitled('headless bare');
    expect(await messagesOf(bareSession.id)).toEqual([]);
    expect(await terminalGapOf(bareSession.id)).toHaveLength(1);
    expect((await check(bareSession.id)).code).toBe(5);

    const withPrompt = runTui('headless prompt', humanToken, ['--prompt', 'check the deploy'], ['--argprompt', '{prompt}']);
    expect(await withPrompt.exited).toBe(0);
    expect(withPrompt.text()).toContain('headless got: check the deploy');
    const session = await sessionTitled('headless prompt');
    const messages = await messagesOf(session.id);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ entry_point: 'cli.run_prompt', channel: 'cli', content: 'check the deploy' });
    expect(await terminalGaps(session.id)).toEqual([]);
    const gate = await check(session.id);
    expect(gate.code, gate.stdout + gate.stderr).toBe(0);
  });

  it('--prompt is refused (exit 2, nothing started) without a human token or without {prompt} in the command', async () => {
    const before = (await get('/api/v1/sessions')).sessions.length;
    const fleet = await runCli(['run', '--title', 'refused fleet', '--prompt', 'do it', '--', process.execPath, WITNESS_TUI, '--argprompt', '{prompt}'], {
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
    });
    expect(fleet.code).toBe(2);
    expect(fleet.stderr).toMatch(/--prompt needs your human token/);
    const noPlaceholder = await runCli(
      ['run', '--title', 'refused placeholder', '--prompt', 'do it', '--', process.execPath, WITNESS_TUI, '--argprompt', 'do it'],
      { env: { WARRANT_URL: server.url, WARRANT_TOKEN: humanToken } },
    );
    expect(noPlaceholder.code).toBe(2);
    expect(noPlaceholder.stderr).toMatch(/\{prompt\}/);
    expect((await get('/api/v1/sessions')).sessions.length).toBe(before);
    // the control: the same command with a human token and {prompt} runs
    const ok = await runCli(['run', '--title', 'accepted', '--prompt', 'do it', '--', process.execPath, WITNESS_TUI, '--argprompt', '{prompt}'], {
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: humanToken, WITNESS_TUI_HOOK: HOOK },
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('headless got: do it');
  });

  it('an agent without a prompt hook: the relayed turn matches no report: a terminal gap naming the session, and the gate says cannot-say (never none)', async () => {
    const t = openTerminal(process.execPath, [CLI, 'run', '--title', 'no prompt hook', '--', process.execPath, WITNESS_TUI], {
      ...env(humanToken),
      WITNESS_TUI_HOOK: '',
    });
    await t.until('ready');
    const from = t.text().length;
    t.type('deploy it\r');
    await t.until('got: deploy it', { from });
    t.type('\x04');
    expect(await t.exited).toBe(7);
    expect(t.text()).not.toContain('not witnessed');
    const session = await sessionTitled('no prompt hook');
    expect(await messagesOf(session.id)).toEqual([]);
    expect(await terminalGapOf(session.id)).toHaveLength(1);
    const gate = await check(session.id);
    expect(gate.code, gate.stdout + gate.stderr).toBe(5);
    expect(gate.stdout).toMatch(/A prompt typed at the agent terminal of #\d+/);
  });

  it('without a human token the runner says once that the terminal is not witnessed, and the gate says cannot-say', async () => {
    const t = runTui('fleet terminal', server.fleetKey);
    await t.until('ready');
    const from = t.text().length;
    t.type('hello\r');
    await t.until('got: hello', { from });
    t.type('\x04');
    expect(await t.exited).toBe(7);
    expect(t.text().match(/this terminal is not witnessed \(no human token/g)).toHaveLength(1);
    const session = await sessionTitled('fleet terminal');
    expect(await messagesOf(session.id)).toEqual([]);
    expect(await terminalGapOf(session.id)).toHaveLength(1);
    expect((await check(session.id)).code).toBe(5);
  });
});
