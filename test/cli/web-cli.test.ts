import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServer, type ServerProcess } from '../helpers/server-process.js';

/** docs/design/sessions.md "Web UI sign-in, always" through the built binary: the banner and the admin CLI. */

/** A cookie jar just big enough for a form round trip over real HTTP. */
async function formRoundTrip(base: string, pagePath: string, postPath: string, fields: Record<string, string>): Promise<Response> {
  const page = await fetch(base + pagePath);
  const cookies = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  return fetch(base + postPath, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: cookies, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, _csrf: csrf }).toString(),
  });
}

describe('web sign-in from the console (built binary)', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'warrant-web-cli-'));
  const dataDir = join(cwd, '.warrant');
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('a fresh server prints a one-time setup code; the first-run page needs it, then the admin CLI prints sign-in links', async () => {
    server = await startServer({ cwd, dataDir });
    const code = /setup code to create the admin:\n\s+([0-9A-Z]{5}-[0-9A-Z]{5})/.exec(server.output())?.[1];
    expect(code, server.output()).toBeDefined();
    expect(server.output()).toContain(`${server.url}/setup`);

    const wrong = await formRoundTrip(server.url, '/setup', '/setup', { code: 'AAAAA-AAAAA', key: 'root' });
    expect(wrong.status).toBe(401);
    const ok = await formRoundTrip(server.url, '/setup', '/setup', { code: code!, key: 'root', display_name: 'Root' });
    expect(ok.status).toBe(303);
    expect(ok.headers.getSetCookie().some((c) => c.startsWith('warrant_session=') && /HttpOnly/.test(c) && /SameSite=Lax/.test(c))).toBe(true);

    const env = { WARRANT_DATA_DIR: dataDir };
    const link = await runCli(['users', 'login-link', '--url', server.url, '--json'], { env, cwd });
    expect(link.code, link.stderr).toBe(0);
    const { url, user } = JSON.parse(link.stdout) as { url: string; user: string };
    expect(user).toBe('root');
    expect(url.startsWith(`${server.url}/sign-in/link/`)).toBe(true);
    const signIn = await formRoundTrip(server.url, new URL(url).pathname, '/sign-in/link', { link: url.split('/').pop()! });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.getSetCookie().some((c) => c.startsWith('warrant_session=wrt_w_'))).toBe(true);
    const text = await runCli(['users', 'login-link', '--ttl', '5'], { env, cwd });
    expect(text.stdout).toMatch(/One-time sign-in link for root \(works once; expires .*\):\nhttp:\/\/127\.0\.0\.1:7420\/sign-in\/link\/\S+/);
    expect((await runCli(['users', 'login-link', '--ttl', '0'], { env, cwd })).code).toBe(2);
    expect((await runCli(['users', 'login-link', 'nobody'], { env, cwd })).code).toBe(1);
  });

  it('`warrant users password` sets a web password from stdin, refuses a short one, and --clear removes it', async () => {
    const env = { WARRANT_DATA_DIR: dataDir };
    const short = await runCli(['users', 'password', 'root'], { env, cwd, input: 'short\n' });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('at least 10 characters');
    const set = await runCli(['users', 'password', 'root'], { env, cwd, input: 'a long web password\n' });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('Set the web password of root.');
    const signIn = await formRoundTrip(server!.url, '/sign-in', '/sign-in', { key: 'root', password: 'a long web password' });
    expect(signIn.status).toBe(303);
    const cleared = await runCli(['users', 'password', 'root', '--clear'], { env, cwd });
    expect(cleared.code).toBe(0);
    const refused = await formRoundTrip(server!.url, '/sign-in', '/sign-in', { key: 'root', password: 'a long web password' });
    expect(refused.status).toBe(401);
  });

  it('a restarted single-admin server prints a one-time sign-in link for the admin', async () => {
    await server!.stop();
    server = await startServer({ cwd, dataDir });
    const line = /sign in as root with this one-time link[^\n]*\n\s+(\S+)/.exec(server.output());
    expect(line, server.output()).not.toBeNull();
    expect(line![1]!.startsWith(`${server.url}/sign-in/link/`)).toBe(true);
    const page = await fetch(line![1]!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sign in as Root');
  });
});
