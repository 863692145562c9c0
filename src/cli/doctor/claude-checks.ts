/**
 * `warrant doctor --provider claude-code`: the project's (and the user's) Claude Code
 * configuration as Claude Code would read it, checked one fact at a time, each with its fix.
 */
import { dirname, join } from 'node:path';
import { CLAUDE_ALLOW_EQUIVALENTS, CLAUDE_HOOK_EVENTS, isWarrantHook } from '../../integrations/agent-config.js';
import { claudeConfigPaths } from '../../integrations/claude-paths.js';
import { argvProblem, expandVars, fail, pass, readJsonFile, runHookOutsideSession, commandArgv, type Check } from './probes.js';
import { mcpToolsCheck, type DoctorContext } from './common.js';

type Json = Record<string, unknown>;
const INTEGRATE = 'warrant integrate claude-code --write';
const INTEGRATE_USER = 'warrant integrate claude-code --user --write';

interface SettingsFile {
  label: string;
  path: string;
  json: Json;
  /** project-scope files count only in a workspace the person trusted */
  projectScope: boolean;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function obj(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

/** `projects[dir]` in Claude's state file, for the dir or the nearest parent it has an entry for. */
function projectState(state: Json, dir: string): { path: string; entry: Json } | null {
  const projects = obj(state.projects);
  for (let d = dir; ; d = dirname(d)) {
    if (projects[d] !== undefined) return { path: d, entry: obj(projects[d]) };
    if (dirname(d) === d) return null;
  }
}

export async function claudeChecks(ctx: DoctorContext): Promise<Check[]> {
  const checks: Check[] = [];
  const paths = claudeConfigPaths(ctx.env, ctx.configDir);
  const files: SettingsFile[] = [];
  const read = (label: string, path: string, projectScope: boolean): Json | null => {
    const json = readJsonFile(path);
    if (json instanceof Error) {
      checks.push(fail('config-files', json.message, `Fix ${path} by hand; Claude Code will not read it either.`));
      return null;
    }
    if (json) files.push({ label, path, json, projectScope });
    return json;
  };
  const mcpJson = read('.mcp.json', join(ctx.dir, '.mcp.json'), true);
  read('.claude/settings.json', join(ctx.dir, '.claude', 'settings.json'), true);
  read('.claude/settings.local.json', join(ctx.dir, '.claude', 'settings.local.json'), true);
  read('user settings', paths.userSettings, false);
  const stateRead = readJsonFile(paths.state);
  const state = stateRead instanceof Error || stateRead === null ? null : stateRead;
  if (stateRead instanceof Error) checks.push(fail('config-files', stateRead.message, `Fix ${paths.state}; Claude Code keeps its own state there.`));
  const settings = files.filter((f) => f.label !== '.mcp.json');
  const project = state ? projectState(state, ctx.dir) : null;

  // the MCP entry, in Claude Code's precedence: local (state, per project) > project > user
  const local = obj(obj(project?.entry.mcpServers).warrant);
  const fromProject = obj(obj(mcpJson?.mcpServers).warrant);
  const fromUser = obj(obj(state?.mcpServers).warrant);
  const [entry, scope] = Object.keys(local).length
    ? [local, 'local']
    : Object.keys(fromProject).length
      ? [fromProject, 'project']
      : Object.keys(fromUser).length
        ? [fromUser, 'user']
        : [null, null];
  if (!entry) {
    checks.push(
      fail(
        'mcp-entry',
        `no "warrant" MCP server in ${join(ctx.dir, '.mcp.json')} or ${paths.state}`,
        `Run \`${INTEGRATE}\` (or \`${INTEGRATE_USER}\` for a headless fleet).`,
      ),
    );
  } else {
    const command = typeof entry.command === 'string' ? entry.command : '';
    const args = strings(entry.args);
    const problem = argvProblem([command, ...args], ctx.env);
    if (problem)
      checks.push(
        fail(
          'mcp-entry',
          `the ${scope} "warrant" MCP entry will not start: ${problem}`,
          `Run \`${scope === 'user' ? INTEGRATE_USER : INTEGRATE}\` again from the installed Warrant (it upgrades its own entry).`,
        ),
      );
    else {
      checks.push(pass('mcp-entry', `${scope} "warrant" MCP entry: ${[command, ...args].join(' ')}`));
      const env = Object.fromEntries(Object.entries(obj(entry.env)).map(([k, v]) => [k, String(v)]));
      checks.push(await mcpToolsCheck(ctx, command, args, (agentEnv) => Object.fromEntries(Object.entries(env).map(([k, v]) => [k, expandVars(v, agentEnv)]))));
    }
    if (scope === 'project') {
      const disabled =
        settings.some((f) => strings(f.json.disabledMcpjsonServers).includes('warrant')) || strings(project?.entry.disabledMcpjsonServers).includes('warrant');
      const enabled =
        settings.some((f) => f.json.enableAllProjectMcpServers === true || strings(f.json.enabledMcpjsonServers).includes('warrant')) ||
        strings(project?.entry.enabledMcpjsonServers).includes('warrant');
      if (disabled)
        checks.push(
          fail(
            'mcp-approval',
            'the project\'s "warrant" server is listed in disabledMcpjsonServers',
            'Remove "warrant" from disabledMcpjsonServers (.claude/settings.local.json, or /mcp in Claude Code).',
          ),
        );
      else if (!enabled)
        checks.push(
          fail(
            'mcp-approval',
            'the project\'s "warrant" server is not approved: interactive Claude Code will not start it until approved (headless -p loads it anyway)',
            `Run \`${INTEGRATE}\` (it approves it in .claude/settings.local.json), approve it when Claude Code asks, or use \`${INTEGRATE_USER}\`.`,
          ),
        );
      else checks.push(pass('mcp-approval', 'the project\'s "warrant" server is approved'));
    }
  }

  // hooks: each of the six events runs Warrant's hook, and each command starts
  const hookCommands = new Map<string, string[]>();
  for (const f of settings) {
    for (const event of CLAUDE_HOOK_EVENTS) {
      for (const group of Array.isArray(obj(f.json.hooks)[event]) ? (obj(f.json.hooks)[event] as unknown[]) : []) {
        for (const hook of Array.isArray(obj(group).hooks) ? (obj(group).hooks as unknown[]) : []) {
          const command = obj(hook).command;
          if (typeof command === 'string' && isWarrantHook(command, 'claude-code')) hookCommands.set(event, [...(hookCommands.get(event) ?? []), command]);
        }
      }
    }
  }
  if (!hookCommands.has('UserPromptSubmit')) {
    checks.push(
      fail(
        'prompt-hook',
        'no Warrant UserPromptSubmit hook: a message delivered into the agent can never be acknowledged, and typed prompts are not reported',
        `Run \`${INTEGRATE}\`.`,
      ),
    );
  } else checks.push(pass('prompt-hook', 'the UserPromptSubmit hook is installed'));
  const missing = CLAUDE_HOOK_EVENTS.filter((e) => e !== 'UserPromptSubmit' && !hookCommands.has(e));
  const broken: string[] = [];
  for (const command of new Set([...hookCommands.values()].flat())) {
    const problem =
      argvProblem(commandArgv(command), ctx.env) ??
      (await runHookOutsideSession(command, JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'warrant-doctor' })));
    if (problem) broken.push(`${command}: ${problem}`);
  }
  if (missing.length) checks.push(fail('hooks', `no Warrant hook for ${missing.join(', ')}`, `Run \`${INTEGRATE}\`.`));
  if (broken.length)
    checks.push(
      fail('hooks', `hook command will not run: ${broken.join('; ')}`, `Run \`${INTEGRATE}\` again from the installed Warrant (it upgrades its own hooks).`),
    );
  if (!missing.length && !broken.length) checks.push(pass('hooks', `all ${CLAUDE_HOOK_EVENTS.length} hooks installed and runnable`));

  // permissions: the tools are allowed, and nothing denies them
  const allowedIn = settings.filter((f) => strings(obj(f.json.permissions).allow).some((r) => CLAUDE_ALLOW_EQUIVALENTS.includes(r)));
  const deniedIn = settings.filter((f) =>
    strings(obj(f.json.permissions).deny).some((r) => CLAUDE_ALLOW_EQUIVALENTS.includes(r) || r.startsWith('mcp__warrant__')),
  );
  if (deniedIn.length)
    checks.push(
      fail(
        'permissions',
        `permissions.deny names Warrant tools in ${deniedIn.map((f) => f.path).join(', ')} (deny wins over allow)`,
        'Remove the mcp__warrant rules from permissions.deny.',
      ),
    );
  else if (!allowedIn.length)
    checks.push(
      fail(
        'permissions',
        'no permissions.allow rule for the Warrant tools: headless Claude Code refuses every call',
        `Run \`${INTEGRATE}\` (adds "mcp__warrant"), or \`${INTEGRATE_USER}\`.`,
      ),
    );
  else {
    checks.push(pass('permissions', `"mcp__warrant" allowed in ${allowedIn.map((f) => f.label).join(', ')}`));
    // a project's allow rules count only in a workspace the person trusted
    if (allowedIn.every((f) => f.projectScope)) {
      if (!state)
        checks.push(
          fail(
            'workspace-trust',
            `cannot read ${paths.state}: Claude Code has not run as this user here, so the workspace is not trusted and the project's allow rule is ignored`,
            `Start \`claude\` in ${ctx.dir} once and accept the trust dialog, or run \`${INTEGRATE_USER}\`.`,
          ),
        );
      else if (project?.entry.hasTrustDialogAccepted !== true)
        checks.push(
          fail(
            'workspace-trust',
            `${ctx.dir} is not a trusted workspace in ${paths.state}: the project's allow rule is ignored`,
            `Start \`claude\` in ${ctx.dir} once and accept the trust dialog, or run \`${INTEGRATE_USER}\`.`,
          ),
        );
      else checks.push(pass('workspace-trust', `${project.path} is trusted`));
    }
  }
  return checks;
}
