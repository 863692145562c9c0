import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isInside } from '../../integrations/agent-config.js';
import { fail, listMcpTools, pass, probeSession, type Check } from './probes.js';

export interface DoctorContext {
  /** the project directory the agent runs in */
  dir: string;
  baseUrl: string;
  env: NodeJS.ProcessEnv;
  /** Claude Code's config dir (--config-dir) */
  configDir?: string;
  /** Codex's config.toml (--config) */
  codexConfig?: string;
  /** the Warrant data dir, when given */
  dataDir?: string;
  /** the codex executable (reads Codex's hook trust) */
  codex?: string;
  /** whether the server answered (the MCP check needs it) */
  serverUp: boolean;
}

/**
 * Starts the MCP entry as the agent would — the agent's environment plus what the entry
 * itself sets — with a session token, and lists its tools.
 */
export async function mcpToolsCheck(
  ctx: DoctorContext,
  command: string,
  args: string[],
  entryEnv: (agentEnv: NodeJS.ProcessEnv) => Record<string, string>,
): Promise<Check> {
  if (!ctx.serverUp) return fail('mcp-tools', 'not tried: the server is not reachable', 'Fix the server check first.');
  const session = await probeSession(ctx.baseUrl, ctx.env);
  if (typeof session === 'string') {
    return fail(
      'mcp-tools',
      `not tried: ${session}`,
      'Set WARRANT_TOKEN (your human token or the fleet key) so doctor can open a probe session, or run it as `warrant run -- warrant doctor`.',
    );
  }
  try {
    const agentEnv: NodeJS.ProcessEnv = { ...ctx.env, WARRANT_URL: ctx.baseUrl, WARRANT_SESSION_TOKEN: session.token };
    const env = Object.fromEntries(Object.entries({ ...agentEnv, ...entryEnv(agentEnv) }).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const tools = await listMcpTools({ command, args, env });
    if (tools.length === 0)
      return fail(
        'mcp-tools',
        `the MCP entry started but listed no tools with ${session.source}`,
        'Check that WARRANT_URL and WARRANT_SESSION_TOKEN reach the server (the entry must pass them through).',
      );
    return pass('mcp-tools', `the MCP entry started and listed ${tools.length} tools with ${session.source}`);
  } catch (error) {
    return fail(
      'mcp-tools',
      `the MCP entry did not list its tools: ${(error as Error).message}`,
      "Run the entry's command by hand to see why; `warrant integrate … --write` again rewrites Warrant's own entry.",
    );
  } finally {
    await session.end();
  }
}

/**
 * The data dir must not lie in the agent's working directory. Known from --data-dir,
 * WARRANT_DATA_DIR, or a store at `<dir>/.warrant` (the server's default when started there).
 */
export function dataDirCheck(ctx: DoctorContext): Check | null {
  const known =
    ctx.dataDir ??
    ctx.env.WARRANT_DATA_DIR ??
    (existsSync(join(ctx.dir, '.warrant', 'warrant.db')) || existsSync(join(ctx.dir, '.warrant', 'fleet-key')) ? join(ctx.dir, '.warrant') : undefined);
  if (!known) return null;
  const dataDir = resolve(known);
  if (isInside(dataDir, ctx.dir)) {
    return fail(
      'data-dir',
      `the Warrant data dir ${dataDir} lies inside the project: an agent running as the same OS user can read the store (and the deny rule stops only its file tools)`,
      'Start the server with WARRANT_DATA_DIR outside the project (e.g. ~/.local/share/warrant), and run agents as another OS user in production.',
    );
  }
  return pass('data-dir', `the data dir ${dataDir} lies outside the project`);
}
