import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, startServer, type ServerProcess } from '../helpers/server-process.js';

const ROOT = resolve(import.meta.dirname, '../..');

function sh(script: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((ok) => {
    const child = spawn('sh', [script], {
      cwd: ROOT,
      env: { ...process.env, WARRANT_TOKEN: '', WARRANT_SESSION_TOKEN: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => ok({ code: code ?? -1, stdout, stderr }));
  });
}

/** What differs run to run: uids, message ids, the sign-in link's secret, its expiry and the server's port. */
function normalize(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>')
    .replace(/msg_[0-9a-f]+/g, 'msg_<id>')
    .replace(/expires \S+\)/g, 'expires <time>)')
    .replace(/http:\/\/127\.0\.0\.1:\d+\/sign-in\/link\/\S+/g, '<sign-in link>')
    .trimEnd();
}

/** The `n`th fenced block after the first line containing `marker`. */
function codeBlockAfter(markdown: string, marker: string, n = 1): string {
  let at = markdown.indexOf(marker);
  if (at < 0) throw new Error(`no ${JSON.stringify(marker)}`);
  let body = '';
  for (let i = 0; i < n; i++) {
    const open = markdown.indexOf('```', at);
    const start = markdown.indexOf('\n', open) + 1;
    const close = markdown.indexOf('\n```', start);
    body = markdown.slice(start, close);
    at = close + 4;
  }
  return body;
}

/**
 * The walk-through (docs/integrations.md, docs/walkthrough.md) and the README's 60-second tour run the same
 * script: a router under `warrant run` spawns two workers through `warrant run`; one messages
 * its parent, one replies to a peer. The tree is fully authenticated and `warrant check`
 * answers for each.
 */
describe('the walk-through with the stand-in agent (docs/examples/tour.sh)', () => {
  let server: ServerProcess;
  let run: { code: number; stdout: string; stderr: string };
  const api = async (path: string) => (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.fleetKey}` } })).json();
  beforeAll(async () => {
    server = await startServer();
    run = await sh('docs/examples/tour.sh', { WARRANT_URL: server.url, WARRANT_CLI: CLI, WARRANT_DATA_DIR: server.dataDir });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('runs to the end, printing the tree and the gate for each session', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/- #\d+ \[router\] \{cli · priority\} Fix the flaky deploy/);
    expect(run.stdout).toMatch(/ {2}- #\d+ \[worker\] \{cli · priority\} worker A/);
    expect(run.stdout).toMatch(/ {2}- #\d+ \[worker\] \{cli · priority\} worker B/);
    expect(run.stdout).toMatch(/warrant for #\d+: here/);
    expect((run.stdout.match(/warrant for #\d+: elsewhere/g) ?? []).length).toBe(2);
    expect((run.stdout.match(/\(exit 3\)/g) ?? []).length).toBe(2);
    // the tour set the single admin first, so every channel of this hierarchy was instrumented
    expect(run.stdout).not.toContain('Capture is NOT configured');
    expect(run.stdout).toMatch(new RegExp(`${server.url.replace(/[.:/]/g, '\\$&')}/\\S+`));
  });

  it('prints exactly the output the README and the walk-through show (ids, uids and the link aside)', () => {
    const printed = normalize(run.stderr + run.stdout);
    expect(printed).toBe(normalize(codeBlockAfter(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'This is its whole output')));
    // the walk-through's step 4 is the tour's stdout from the tree to the last gate
    const walkthrough = readFileSync(join(ROOT, 'docs', 'walkthrough.md'), 'utf8');
    const step4 = normalize(codeBlockAfter(walkthrough.slice(walkthrough.indexOf('```\n- #1 [router]')), '```'));
    expect(printed).toContain(step4);
    expect(step4.split('\n')).toHaveLength(11); // the tree, and each gate with its evidence (and exit)
  });

  it('leaves a fully authenticated tree: every spawn edge and every acting session', async () => {
    const router = (await api('/api/v1/sessions?q=Fix%20the%20flaky%20deploy')).sessions[0];
    const workers = (await api(`/api/v1/sessions?parent=${router.id}`)).sessions;
    expect(workers.map((w: any) => w.title).sort()).toEqual(['worker A', 'worker B']);
    for (const w of workers) {
      expect(w).toMatchObject({
        parent_session_id: router.id,
        parent_basis: 'authenticated',
        creator: { kind: 'session', ref: String(router.id) },
        creator_basis: 'authenticated',
        status: 'stopped',
      });
      for (const e of (await api(`/api/v1/sessions/${w.id}/events?limit=200`)).events)
        if (e.actor) expect(e.actor.basis, `${w.title} ${e.type}`).toBe('authenticated');
    }
    for (const e of (await api(`/api/v1/sessions/${router.id}/events?limit=200`)).events)
      if (e.actor) expect(e.actor.basis, `router ${e.type}`).toBe('authenticated');
    // worker A told its parent; worker A messaged worker B, who replied
    const a = workers.find((w: any) => w.title === 'worker A');
    const b = workers.find((w: any) => w.title === 'worker B');
    const routerInbox = (await api(`/api/v1/sessions/${router.id}/inbox?state=all`)).items;
    expect(routerInbox.map((i: any) => [i.kind, i.sender_session_id])).toContainEqual(['parent_message', a.id]);
    const bInbox = (await api(`/api/v1/sessions/${b.id}/inbox?state=all`)).items.filter((i: any) => i.kind === 'agent_message');
    const aInbox = (await api(`/api/v1/sessions/${a.id}/inbox?state=all`)).items.filter((i: any) => i.kind === 'agent_message');
    expect(bInbox).toHaveLength(1);
    expect(aInbox).toHaveLength(1);
    expect(bInbox[0]).toMatchObject({ sender_session_id: a.id, state: 'delivered' });
    expect(aInbox[0]).toMatchObject({ sender_session_id: b.id, state: 'delivered' });
  });

  it('`warrant check` answers here for the router and elsewhere for the workers', async () => {
    const router = (await api('/api/v1/sessions?q=Fix%20the%20flaky%20deploy')).sessions[0];
    const env = { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey };
    expect((await runCli(['check', String(router.id)], { env })).code).toBe(0);
    for (const w of (await api(`/api/v1/sessions?parent=${router.id}`)).sessions) expect((await runCli(['check', String(w.id)], { env })).code).toBe(3);
  });
});

describe('the tour without a server', () => {
  it('says so in one line, exits 1 and issues nothing', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'warrant-tour-')), '.warrant');
    const r = await sh('docs/examples/tour.sh', { WARRANT_URL: 'http://127.0.0.1:9', WARRANT_CLI: CLI, WARRANT_DATA_DIR: dataDir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'tour: no Warrant server answers at http://127.0.0.1:9: start one with `npm start` in another terminal (or set WARRANT_URL to where it runs).\n',
    );
    // no roster entry, no token: the admin commands never ran
    expect(existsSync(dataDir)).toBe(false);
  });
});
