/**
 * Codex runs a hook that is not managed only once its content hash is recorded as trusted in
 * config.toml (`[hooks.state."<key>"] trusted_hash = "sha256:…"`). Key and hash come from
 * Codex itself — its app-server's `hooks/list` — never computed here (docs/design/agent-clis.md).
 */
import { spawn } from 'node:child_process';

interface CodexHook {
  key: string;
  command: string;
  eventName: string;
  currentHash: string;
  trustStatus: string;
  sourcePath: string;
}

/** The argv that starts Codex: a `.js` launcher runs under this Node. */
function codexArgv(codex: string): string[] {
  return /\.[cm]?js$/.test(codex) ? [process.execPath, codex] : [codex];
}

/** Asks `codex app-server` (JSON-RPC over stdio) which hooks apply in `cwd`, with their trust. */
export function listCodexHooks(codex: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<CodexHook[]> {
  const [command, ...args] = codexArgv(codex);
  const child = spawn(command!, [...args, 'app-server'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
  const send = (message: unknown) => child.stdin.write(JSON.stringify(message) + '\n');
  return new Promise<CodexHook[]>((resolveList, reject) => {
    const timer = setTimeout(() => reject(new Error(`codex app-server did not answer hooks/list within ${timeoutMs / 1000} s`)), timeoutMs);
    let buffer = '';
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.stdin.on('error', () => {});
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        let message: { id?: number; error?: unknown; result?: { data?: { hooks?: CodexHook[]; errors?: unknown[] }[] } };
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        if (message.id !== 2) continue;
        clearTimeout(timer);
        if (message.error) return reject(new Error(`codex hooks/list: ${JSON.stringify(message.error)}`));
        const data = message.result?.data ?? [];
        const errors = data.flatMap((d) => d.errors ?? []);
        if (errors.length) return reject(new Error(`codex hooks/list: ${JSON.stringify(errors)}`));
        resolveList(data.flatMap((d) => d.hooks ?? []));
      }
    });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'warrant', version: '0.1.0' } } });
    send({ jsonrpc: '2.0', method: 'initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'hooks/list', params: { cwds: [cwd] } });
  }).finally(() => child.kill());
}

/**
 * config.toml with `trusted_hash` recorded for each given hook: an existing
 * `[hooks.state."<key>"]` table has its line replaced, otherwise a table is appended.
 */
export function trustCodexHooksInToml(text: string, hooks: readonly Pick<CodexHook, 'key' | 'currentHash'>[]): string {
  const lines = text.replace(/\n$/, '').split('\n');
  for (const hook of hooks) {
    const header = `[hooks.state.${JSON.stringify(hook.key)}]`;
    const hash = `trusted_hash = ${JSON.stringify(hook.currentHash)}`;
    const at = lines.findIndex((l) => l.trim() === header);
    if (at < 0) {
      lines.push('', header, hash);
      continue;
    }
    const end = lines.findIndex((l, i) => i > at && /^\s*\[/.test(l));
    const hashAt = lines.slice(at + 1, end < 0 ? lines.length : end).findIndex((l) => /^\s*trusted_hash\s*=/.test(l));
    if (hashAt < 0) lines.splice(at + 1, 0, hash);
    else lines[at + 1 + hashAt] = hash;
  }
  return lines.join('\n') + '\n';
}
