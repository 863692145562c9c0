import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptFingerprint } from '../../src/core/prompt-match.js';
import { runCli, startServer, type ServerProcess } from '../helpers/server-process.js';

/**
 * The gate's exit codes for runs at an agent terminal, against the built server as a child
 * process, driven over HTTP the way `warrant run` drives it (docs/design/terminal-channel.md):
 * a witnessed turn is `here` (exit 0); a turn the witness never recorded, in a run that died
 * before its closing report, is `cannot-say` (exit 5) and never `none` (exit 4).
 */
describe('warrant check on terminal runs (built server and CLI)', () => {
  let server: ServerProcess;
  let env: Record<string, string>;
  let human = '';
  beforeAll(async () => {
    server = await startServer();
    env = { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey, WARRANT_DATA_DIR: server.dataDir };
    // the web UI instrumented (a resolving admin), so only the terminal can make a gap
    expect((await runCli(['users', 'add', 'boss', '--name', 'Boss'], { env })).code).toBe(0);
    expect((await runCli(['users', 'edit', 'boss', '--admin', 'yes'], { env })).code).toBe(0);
    const set = await runCli(['settings', 'set', 'admin_user', 'boss'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect((await runCli(['users', 'add', 'tess', '--name', 'Tess'], { env })).code).toBe(0);
    human = JSON.parse((await runCli(['users', 'tokens', 'issue', 'tess', '--json'], { env })).stdout).token as string;
  });
  afterAll(async () => {
    await server?.stop();
  });

  const api = async (token: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    return { status: res.status, body: await res.json() };
  };
  const attachWithTty = async () => {
    const created = await api(human, '/api/v1/sessions', { title: 'typed at', attach: true, runner: { tty: true } });
    expect(created.status).toBe(201);
    const id = created.body.session.id as number;
    const minted = await api(human, `/api/v1/sessions/${id}/witness`);
    expect(minted.status).toBe(201);
    return { id, sessionToken: created.body.session_token as string, witness: minted.body.witness_token as string };
  };
  const check = (id: number) => runCli(['check', String(id)], { env });

  it('a witnessed turn: here, exit 0', async () => {
    const r = await attachWithTty();
    const text = 'Check the deploy, please.';
    const f = await promptFingerprint(text);
    const turn = await api(r.witness, `/api/v1/sessions/${r.id}/terminal/turns`, { ...f, reliable: true, pasted: false });
    expect(turn.status).toBe(201);
    expect((await api(r.sessionToken, `/api/v1/sessions/${r.id}/prompts`, f)).status).toBe(200);
    const recorded = await api(r.witness, `/api/v1/sessions/${r.id}/terminal/prompts`, {
      turn_id: turn.body.turn_id,
      text,
      pasted: false,
      witness_isolation: 'same-uid',
    });
    expect(recorded.status).toBe(201);
    expect((await api(r.witness, `/api/v1/sessions/${r.id}/terminal/close`, { turns: 1 })).status).toBe(200);
    expect((await api(r.sessionToken, `/api/v1/sessions/${r.id}/runtime`, { state: 'exited', code: 0 })).status).toBe(200);
    const gate = await check(r.id);
    expect(gate.code, gate.stdout + gate.stderr).toBe(0);
    expect(gate.stdout).toContain(`warrant for #${r.id}: here`);
    expect(gate.stdout).toContain('witness_isolation: same-uid');
    expect(gate.stdout).not.toContain('agent terminal of');
  });

  it('a turn that was not witnessed, in a run that died before its close: cannot-say, exit 5; a run without a TTY: none, exit 4', async () => {
    const r = await attachWithTty();
    const f = await promptFingerprint('typed, and the agent took something else');
    expect((await api(r.witness, `/api/v1/sessions/${r.id}/terminal/turns`, { ...f, reliable: true, pasted: false })).status).toBe(201);
    // the agent's report of words nobody typed, with its own token: matches nothing
    expect((await api(r.sessionToken, `/api/v1/sessions/${r.id}/prompts`, await promptFingerprint('forged words'))).status).toBe(200);
    expect((await api(r.sessionToken, `/api/v1/sessions/${r.id}/runtime`, { state: 'error', reason: 'killed' })).status).toBe(200);
    const gate = await check(r.id);
    expect(gate.code, gate.stdout + gate.stderr).toBe(5);
    expect(gate.stdout).toContain(`warrant for #${r.id}: cannot-say`);
    // the sentence names the unmatched turn ("is not matched yet" within 5 s of it, "was not witnessed" after)
    expect(gate.stdout).toMatch(
      new RegExp(`A prompt typed at the agent terminal of #${r.id} \\(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\) (is not matched yet|was not witnessed)`),
    );

    const machine = await api(server.fleetKey, '/api/v1/sessions', { title: 'a scheduler', attach: true, runner: { tty: false } });
    const none = await check(machine.body.session.id);
    expect(none.code, none.stdout).toBe(4);
  });
});
