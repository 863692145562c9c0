import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One line a hook sends (docs/design/agent-runtimes.md, "the runner socket"). */
export interface HookReport {
  v: 1;
  provider: string;
  event: string;
  payload: Record<string, unknown>;
}

interface RunnerSocket {
  path: string;
  /** resolves once no hook connection is open and none arrived for `quietMs` */
  settle(quietMs: number): Promise<void>;
  close(): Promise<void>;
}

/** A hook report line is at most this long; a transcript is never sent this way, only its path. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

function parseReport(line: string): HookReport | null {
  try {
    const parsed = JSON.parse(line) as Partial<HookReport>;
    if (parsed.v !== 1 || typeof parsed.provider !== 'string' || typeof parsed.event !== 'string') return null;
    const payload = typeof parsed.payload === 'object' && parsed.payload !== null && !Array.isArray(parsed.payload) ? parsed.payload : {};
    return { v: 1, provider: parsed.provider, event: parsed.event, payload };
  } catch {
    return null;
  }
}

/**
 * The runner's private socket: the agent's hooks hand their events to the runner, which does
 * the server calls off the hook's path (so a hook returns in milliseconds). The directory is
 * 0700, so only the runner's OS user can connect; the reply is sent at once and carries any
 * warning the person should see (a report that could not land).
 */
export async function openRunnerSocket(onReport: (report: HookReport) => void, pendingWarning: () => string | null): Promise<RunnerSocket> {
  const dir = mkdtempSync(join(tmpdir(), 'warrant-run-'));
  chmodSync(dir, 0o700);
  const path = join(dir, 'hooks.sock');
  const open = new Set<Socket>();
  let lastActivity = Date.now();
  const server: Server = createServer((socket) => {
    open.add(socket);
    lastActivity = Date.now();
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      if (buffer.length > MAX_LINE_BYTES) return socket.destroy();
      const newline = buffer.indexOf('\n');
      if (newline < 0) return;
      const report = parseReport(buffer.slice(0, newline));
      buffer = '';
      if (report) onReport(report);
      const warning = pendingWarning();
      socket.end(JSON.stringify(report ? { ok: true, ...(warning ? { system_message: warning } : {}) } : { ok: false, error: 'invalid-report' }) + '\n');
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      open.delete(socket);
      lastActivity = Date.now();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  server.unref();
  return {
    path,
    async settle(quietMs) {
      // quiet means: nothing open, and nothing for quietMs since the later of the last connection and now
      const from = Date.now();
      while (open.size > 0 || Date.now() - Math.max(lastActivity, from) < quietMs) await new Promise((r) => setTimeout(r, 20));
    },
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
