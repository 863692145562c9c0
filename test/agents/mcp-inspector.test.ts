import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import { existsSync } from 'node:fs';
import { INSPECTOR_JS, WARRANT_CLI, baseEnv, runInPty, runToEnd, scratchDir } from './agent-clis.js';

/**
 * The MCP ecosystem's own client (`npx @modelcontextprotocol/inspector --cli`, pinned in
 * scripts/install-agent-clis.mjs) over Streamable HTTP: without a token it shows Warrant's
 * refusal, never an OAuth sign-in (docs/api.md "MCP").
 */
describe('the MCP Inspector CLI against /mcp', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    // never skipped: missing, it fails (CI installs it with the agent CLIs)
    const missing = [INSPECTOR_JS, WARRANT_CLI].filter((p) => !existsSync(p));
    if (missing.length > 0) throw new Error(`missing ${missing.join(', ')}: run \`npm run test:agents\` (it builds and runs scripts/install-agent-clis.mjs)`);
    server = await startServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  const inspect = (home: string, args: string[]) =>
    runToEnd(process.execPath, [INSPECTOR_JS, '--cli', `${server.url}/mcp`, '--method', 'tools/list', '--format', 'json', ...args], {
      cwd: home,
      env: { ...baseEnv(home), MCP_INSPECTOR_SECRET_STORE: 'memory' },
      timeoutMs: 60_000,
    });

  it('lists the tools with a fleet key (the client works against this server)', async () => {
    const home = scratchDir('inspector-ok');
    const r = await inspect(home, ['--header', `Authorization: Bearer ${server.fleetKey}`]);
    expect(r.code, r.stderr).toBe(0);
    const names = (JSON.parse(r.stdout).result.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['start_session', 'list_sessions', 'get_session']));
  });

  it("without a token, or with a wrong one, prints Warrant's refusal (non-interactive: --stored-auth-only)", async () => {
    const home = scratchDir('inspector-none');
    const none = await inspect(home, ['--stored-auth-only']);
    expect(none.code).toBe(3);
    expect(none.stdout + none.stderr).toContain('unauthenticated');
    expect(none.stdout + none.stderr).toContain('This route needs a credential: send Authorization: Bearer <token>.');
    const bad = await inspect(home, ['--stored-auth-only', '--header', 'Authorization: Bearer wrt_s_not-a-real-token']);
    expect(bad.code).toBe(3);
    expect(bad.stdout + bad.stderr).toContain('invalid-token');
  });

  it("on a terminal, its OAuth attempt ends in Warrant's message: no sign-in page, no authorization URL", async () => {
    const home = scratchDir('inspector-tty');
    const screen = await runInPty([process.execPath, INSPECTOR_JS, '--cli', `${server.url}/mcp`, '--method', 'tools/list'], {
      cwd: home,
      env: { ...baseEnv(home), TERM: 'xterm', MCP_INSPECTOR_SECRET_STORE: 'memory' },
      steps: [{ wait: 40, until: '"error"', send: '' }],
      linger: 1,
    });
    expect(screen.stdout).toContain('This Warrant server offers no OAuth sign-in');
    expect(screen.stdout).toContain('without one /mcp answers unauthenticated, with a wrong one invalid-token');
    expect(screen.stdout).not.toMatch(/authorize\?|Authorization complete|Open the URL/i);
  }, 90_000);
});
