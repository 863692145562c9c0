/**
 * What `warrant doctor` does from the agent's side: reach the server, start the MCP entry the
 * way the agent would and list its tools, and check that each hook command resolves and runs.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join } from 'node:path';
import { ApiClient } from '../api-client.js';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** what to do about a failure */
  fix?: string;
  /** not checked (what it needs is not at hand): neither a pass nor a failure */
  skipped?: boolean;
}

export function skip(name: string, detail: string): Check {
  return { name, ok: true, detail, skipped: true };
}

export function pass(name: string, detail: string): Check {
  return { name, ok: true, detail };
}

export function fail(name: string, detail: string, fix: string): Check {
  return { name, ok: false, detail, fix };
}

/** Reads a JSON object file: null when absent, an Error when unreadable or not an object. */
export function readJsonFile(path: string): Record<string, unknown> | null | Error {
  if (!existsSync(path)) return null;
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return new Error(`${path} does not hold a JSON object`);
    return value as Record<string, unknown>;
  } catch (error) {
    return new Error(`${path} is not valid JSON (${(error as Error).message})`);
  }
}

export async function checkServer(baseUrl: string): Promise<Check> {
  try {
    const response = await fetch(`${baseUrl}/api/v1/health`, { signal: AbortSignal.timeout(3000) });
    if (response.ok) return pass('server', `${baseUrl} answers`);
    return fail('server', `${baseUrl}/api/v1/health answered ${response.status}`, 'Check the server log; `warrant serve` must be running and healthy.');
  } catch (error) {
    return fail(
      'server',
      `cannot reach ${baseUrl} (${(error as Error).message})`,
      'Start it with `warrant serve`, or set WARRANT_URL to the server the agent will use.',
    );
  }
}

/** Splits a shell command line into words (quotes and backslashes; no expansions). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word += command.slice(i + 1, end < 0 ? command.length : end);
      i = end < 0 ? command.length : end;
      inWord = true;
    } else if (c === '"') {
      i++;
      while (i < command.length && command[i] !== '"') {
        if (command[i] === '\\' && i + 1 < command.length) i++;
        word += command[i]!;
        i++;
      }
      inWord = true;
    } else if (c === '\\' && i + 1 < command.length) {
      word += command[++i]!;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** A `NAME=value` word: an environment assignment before a command (the shell's, or `env`'s). */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function withoutAssignments(words: readonly string[]): string[] {
  let first = 0;
  while (first < words.length && ASSIGNMENT.test(words[first]!)) first++;
  return words.slice(first);
}

/** What `env` runs in an argv that starts with it: past its options and assignments. */
function commandOfEnv(argv: readonly string[]): string[] {
  let i = 1;
  while (i < argv.length) {
    const word = argv[i]!;
    if (word === '--') return argv.slice(i + 1);
    if (word === '-u' || word === '--unset' || word === '-C' || word === '--chdir') i += 2;
    else if (word.startsWith('-') || ASSIGNMENT.test(word)) i += 1;
    else break;
  }
  return argv.slice(i);
}

/**
 * The argv a shell command line runs: its words without the leading `NAME=value`
 * assignments, which set the command's environment (Warrant's hook commands start with one).
 */
export function commandArgv(command: string): string[] {
  return withoutAssignments(shellWords(command));
}

/** The executable a command word names: an existing path, or the first match on PATH. */
export function resolveExecutable(word: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (word.includes('/')) return executable(word) ? word : null;
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir && executable(join(dir, word))) return join(dir, word);
  return null;
}

/** Why an argv would not start: a missing executable or script file; null when it resolves. */
export function argvProblem(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string | null {
  if (argv.length === 0) return 'the command is empty';
  if (!resolveExecutable(argv[0]!, env)) return argv[0]!.includes('/') ? `${argv[0]} does not exist (or is not executable)` : `${argv[0]} is not on PATH`;
  // `env [-i] [-u NAME] NAME=value … cmd …` (Codex's notify): what env runs must start too
  if (basename(argv[0]!) === 'env') return argvProblem(commandOfEnv(argv), env);
  const script = argv[1];
  if (script && isAbsolute(script) && /\.[cm]?js$/.test(script) && !existsSync(script)) return `${script} does not exist`;
  return null;
}

/** `${VAR}` and `${VAR:-default}`, as the agent expands them in its MCP configuration. */
export function expandVars(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback?: string) => env[name] || fallback || '');
}

/**
 * Runs a hook command outside a session (no session token), as the agent would with the
 * person's own environment: it must exit 0 and print nothing (a silent no-op).
 */
export function runHookOutsideSession(command: string, input: string, timeoutMs = 10_000): Promise<string | null> {
  return new Promise((resolveResult) => {
    const env = { ...process.env };
    delete env.WARRANT_SESSION_TOKEN;
    delete env.WARRANT_RUNNER_SOCKET;
    const child = spawn('/bin/sh', ['-c', command], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolveResult(`did not finish within ${timeoutMs / 1000} s`);
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.resume();
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolveResult(error.message);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) resolveResult(`exited ${code}`);
      else if (stdout.trim() !== '')
        resolveResult(`printed on stdout outside a session (${JSON.stringify(stdout.trim().slice(0, 80))}); the agent would add that to the model's context`);
      else resolveResult(null);
    });
  });
}

interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Starts the MCP entry over stdio with the real SDK client and lists its tools. */
export async function listMcpTools(launch: McpLaunch, timeoutMs = 20_000): Promise<string[]> {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const client = new Client({ name: 'warrant-doctor', version: '0.1.0' });
  const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: launch.env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-400)));
  let timer: NodeJS.Timeout | undefined;
  try {
    const work = (async () => {
      await client.connect(transport);
      return (await client.listTools()).tools.map((t) => t.name);
    })();
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs)));
    return await Promise.race([work, timeout]);
  } catch (error) {
    throw new Error(`${(error as Error).message}${stderr.trim() ? ` — its stderr: ${stderr.trim()}` : ''}`);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}

interface ProbeSession {
  token: string;
  /** ends a session doctor opened itself; a no-op for the caller's own */
  end(): Promise<void>;
  source: string;
}

/**
 * The session token the MCP entry is started with: the caller's own (run under `warrant run`),
 * else a short-lived probe session opened with WARRANT_TOKEN and ended afterwards.
 */
export async function probeSession(baseUrl: string, env: NodeJS.ProcessEnv): Promise<ProbeSession | string> {
  if (env.WARRANT_SESSION_TOKEN) return { token: env.WARRANT_SESSION_TOKEN, end: async () => {}, source: 'this session (WARRANT_SESSION_TOKEN)' };
  const credential = env.WARRANT_TOKEN || env.WARRANT_FLEET_KEY;
  if (!credential) return 'no credential to open a probe session with';
  const api = new ApiClient({ baseUrl, token: credential, timeoutMs: 5000 });
  try {
    const r = await api.json<{ session: { id: number }; session_token: string }>('POST', '/api/v1/sessions', {
      attach: true,
      title: 'warrant doctor probe',
      agent_root: 'warrant-doctor',
    });
    const self = new ApiClient({ baseUrl, token: r.session_token, timeoutMs: 5000 });
    return {
      token: r.session_token,
      source: `probe session #${r.session.id}`,
      end: async () => {
        await self.json('POST', `/api/v1/sessions/${r.session.id}/runtime`, { state: 'exited', code: 0 }).catch(() => {});
      },
    };
  } catch (error) {
    return `could not open a probe session (${(error as Error).message})`;
  }
}
