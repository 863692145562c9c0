/** `warrant doctor --provider codex`: Codex's config.toml and hooks.json, checked like Claude Code's. */
import { existsSync, readFileSync } from 'node:fs';
import { isWarrantHook } from '../../integrations/agent-config.js';
import { CODEX_HOOK_EVENTS, codexConfigPaths, readTomlTables } from '../../integrations/codex-config.js';
import { argvProblem, fail, pass, resolveExecutable, skip, readJsonFile, runHookOutsideSession, commandArgv, type Check } from './probes.js';
import { mcpToolsCheck, type DoctorContext } from './common.js';
import { listCodexHooks } from '../../integrations/codex-app-server.js';
import { dirname } from 'node:path';

type Json = Record<string, unknown>;
const INTEGRATE = 'warrant integrate codex --write';

function obj(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

export async function codexChecks(ctx: DoctorContext): Promise<Check[]> {
  const checks: Check[] = [];
  const paths = codexConfigPaths(ctx.env, ctx.codexConfig);
  const tables = readTomlTables(existsSync(paths.config) ? readFileSync(paths.config, 'utf8') : '');
  const server = tables.get('mcp_servers.warrant');
  if (!server) checks.push(fail('mcp-entry', `no [mcp_servers.warrant] table in ${paths.config}`, `Run \`${INTEGRATE}\`.`));
  else {
    const command = typeof server.command === 'string' ? server.command : '';
    const args = Array.isArray(server.args) ? server.args.map(String) : [];
    const forwarded = Array.isArray(server.env_vars) ? server.env_vars.map(String) : [];
    const problem = argvProblem([command, ...args], ctx.env);
    if (problem)
      checks.push(
        fail(
          'mcp-entry',
          `the "warrant" MCP server will not start: ${problem}`,
          `Run \`${INTEGRATE}\` again from the installed Warrant (it upgrades its own entry).`,
        ),
      );
    else if (!forwarded.includes('WARRANT_SESSION_TOKEN') || !forwarded.includes('WARRANT_URL')) {
      checks.push(
        fail(
          'mcp-entry',
          '[mcp_servers.warrant] does not pass WARRANT_URL and WARRANT_SESSION_TOKEN through (env_vars): Codex starts MCP servers without them',
          'Add env_vars = ["WARRANT_URL", "WARRANT_SESSION_TOKEN"] to [mcp_servers.warrant].',
        ),
      );
    } else {
      checks.push(pass('mcp-entry', `"warrant" MCP server: ${[command, ...args].join(' ')}`));
      const fixed = Object.fromEntries(Object.entries(obj(tables.get('mcp_servers.warrant.env'))).map(([k, v]) => [k, String(v)]));
      checks.push(await mcpToolsCheck(ctx, command, args, () => fixed));
    }
    if (server.default_tools_approval_mode !== 'approve') {
      checks.push(
        fail(
          'permissions',
          `[mcp_servers.warrant] has default_tools_approval_mode = ${JSON.stringify(server.default_tools_approval_mode ?? 'unset')}: headless \`codex exec\` refuses every Warrant tool call that needs approval`,
          'Set default_tools_approval_mode = "approve" in [mcp_servers.warrant] (`warrant integrate codex --write` writes it for a new table).',
        ),
      );
    } else checks.push(pass('permissions', 'the Warrant tools are approved (default_tools_approval_mode = "approve")'));
    if (server.required !== true)
      checks.push(
        fail(
          'mcp-entry',
          "[mcp_servers.warrant] is not `required = true`: Codex may start the first turn before the server is up, without Warrant's tools",
          'Add `required = true` to [mcp_servers.warrant].',
        ),
      );
    if (server.enabled === false)
      checks.push(fail('mcp-entry', '[mcp_servers.warrant] has enabled = false', 'Remove `enabled = false` from [mcp_servers.warrant].'));
  }

  const features = tables.get('features') ?? {};
  if (features.hooks === false || features.codex_hooks === false)
    checks.push(fail('hooks', `hooks are turned off in ${paths.config} ([features])`, 'Remove `hooks = false` / `codex_hooks = false` from [features].'));

  const hooksJson = readJsonFile(paths.hooks);
  if (hooksJson instanceof Error) checks.push(fail('config-files', hooksJson.message, `Fix ${paths.hooks} by hand; Codex will not read it either.`));
  const hooks = obj(hooksJson instanceof Error ? null : hooksJson?.hooks);
  const found = new Map<string, string[]>();
  for (const event of CODEX_HOOK_EVENTS) {
    for (const group of Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : []) {
      for (const hook of Array.isArray(obj(group).hooks) ? (obj(group).hooks as unknown[]) : []) {
        const command = obj(hook).command;
        if (typeof command === 'string' && isWarrantHook(command, 'codex')) found.set(event, [...(found.get(event) ?? []), command]);
      }
    }
  }
  if (!found.has('UserPromptSubmit'))
    checks.push(
      fail(
        'prompt-hook',
        `no Warrant UserPromptSubmit hook in ${paths.hooks}: a message delivered into the agent can never be acknowledged`,
        `Run \`${INTEGRATE}\`.`,
      ),
    );
  else checks.push(pass('prompt-hook', 'the UserPromptSubmit hook is installed'));
  const missing = CODEX_HOOK_EVENTS.filter((e) => e !== 'UserPromptSubmit' && !found.has(e));
  const broken: string[] = [];
  for (const command of new Set([...found.values()].flat())) {
    const problem =
      argvProblem(commandArgv(command), ctx.env) ??
      (await runHookOutsideSession(command, JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'warrant-doctor' })));
    if (problem) broken.push(`${command}: ${problem}`);
  }
  const notify = tables.get('')?.notify;
  if (Array.isArray(notify) && notify.length > 0 && isWarrantHook(notify.map(String).join(' '), 'codex')) {
    const problem = argvProblem(notify.map(String), ctx.env);
    if (problem) broken.push(`notify: ${problem}`);
  }
  if (found.size) checks.push(await trustCheck(ctx, paths.config));
  if (missing.length) checks.push(fail('hooks', `no Warrant hook for ${missing.join(', ')} in ${paths.hooks}`, `Run \`${INTEGRATE}\`.`));
  if (broken.length)
    checks.push(
      fail('hooks', `hook command will not run: ${broken.join('; ')}`, `Run \`${INTEGRATE}\` again from the installed Warrant (it upgrades its own hooks).`),
    );
  if (!missing.length && !broken.length) checks.push(pass('hooks', `all ${CODEX_HOOK_EVENTS.length} hooks installed and runnable`));
  return checks;
}

/** Codex silently skips a hook it has not trusted; only Codex can say which it trusts. */
async function trustCheck(ctx: DoctorContext, config: string): Promise<Check> {
  const codex = ctx.codex ?? 'codex';
  if (!resolveExecutable(codex, ctx.env)) return skip('hooks-trust', `${codex} not found, so Codex's hook trust was not read (pass --codex <path>)`);
  try {
    const hooks = (await listCodexHooks(codex, ctx.dir, { ...ctx.env, CODEX_HOME: dirname(config) })).filter((h) => isWarrantHook(h.command, 'codex'));
    const untrusted = hooks.filter((h) => h.trustStatus !== 'trusted');
    if (untrusted.length)
      return fail(
        'hooks-trust',
        `Codex does not trust ${untrusted.length} of Warrant's ${hooks.length} hooks (${untrusted.map((h) => h.eventName).join(', ')}): it skips them silently`,
        'Run `warrant integrate codex --write --trust-hooks`, or trust them in Codex.',
      );
    return pass('hooks-trust', `Codex trusts all ${hooks.length} Warrant hooks`);
  } catch (error) {
    return fail(
      'hooks-trust',
      `could not ask Codex which hooks it trusts: ${(error as Error).message}`,
      'Check that `codex app-server` starts (or pass --codex <path>).',
    );
  }
}
