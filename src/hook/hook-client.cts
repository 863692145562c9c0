// What an agent hook does (the entry point is hook-main.cts; `warrant hook` is an alias).
// It loads nothing but node:net, node:fs and node:tty, as CommonJS — an agent runs it on every
// event, so it must cost milliseconds (docs/design/agent-runtimes.md, "the runner socket"), and
// Node starts a CommonJS entry without its ES module loader. It never blocks the agent: exit 0
// always; a problem is said only as the agent's JSON `systemMessage` (plain stdout would be
// added to the model's context on SessionStart and UserPromptSubmit).
import fs = require('node:fs');
import net = require('node:net');
import tty = require('node:tty');

/** How long a hook waits for the runner's acknowledgement before it lets the agent go on. */
const RUNNER_TIMEOUT_MS = 2000;
const PROVIDERS = ['claude-code', 'codex'];

function systemMessage(text: string): string {
  return JSON.stringify({ systemMessage: `Warrant: ${text}` }) + '\n';
}

function sendToRunner(socketPath: string, line: string): Promise<{ ok?: boolean; system_message?: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let reply = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`warrant run did not answer within ${RUNNER_TIMEOUT_MS} ms`));
    }, RUNNER_TIMEOUT_MS);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(line + '\n'));
    socket.on('data', (chunk: string) => {
      reply += chunk;
      // one line is the whole answer: don't wait for the runner to close the connection
      if (reply.includes('\n')) socket.end();
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(reply.split('\n')[0] || '{}') as { ok?: boolean; system_message?: string });
      } catch {
        reject(new Error('warrant run sent an unreadable answer'));
      }
    });
  });
}

/**
 * One hook call: the event (stdin JSON, or Codex `notify`'s argv payload) goes to the runner's
 * socket; returns what to print on stdout ('' for nothing).
 */
async function runHook(provider: string, stdinText: string, argvPayload: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  // outside `warrant run` (no session token) every hook is a silent no-op
  if (!env.WARRANT_SESSION_TOKEN) return '';
  if (!PROVIDERS.includes(provider))
    return systemMessage(`unknown hook provider ${JSON.stringify(provider)} (expected claude-code or codex); nothing was recorded.`);
  let payload: Record<string, unknown>;
  try {
    const text = (argvPayload ?? stdinText).trim();
    const parsed: unknown = text ? JSON.parse(text) : {};
    payload = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return systemMessage('the hook input was not JSON; this event was not recorded.');
  }
  // Codex `notify` payloads name their kind in `type`; hook payloads in `hook_event_name`
  const event = String(payload.hook_event_name ?? (payload.type === 'agent-turn-complete' ? 'TurnComplete' : (payload.type ?? '')));
  const socketPath = env.WARRANT_RUNNER_SOCKET;
  if (!socketPath) {
    return event === 'SessionStart'
      ? systemMessage('this agent holds a session token but was not started by `warrant run`, so its hook events are not recorded.')
      : '';
  }
  try {
    const reply = await sendToRunner(socketPath, JSON.stringify({ v: 1, provider, event, payload }));
    return reply.system_message ? systemMessage(reply.system_message) : '';
  } catch (error) {
    return systemMessage(`could not hand ${event || 'this event'} to \`warrant run\` (${(error as Error).message}); it was not recorded.`);
  }
}

/**
 * The hook's JSON on stdin ('' on a terminal: nothing was piped). Read with blocking reads:
 * a stdin stream costs milliseconds to set up, and the agent closes the pipe after the one
 * JSON. A stdin the agent left non-blocking (EAGAIN) is read on as a stream from where the
 * blocking reads stopped, so nothing already read is lost.
 */
async function readStdin(): Promise<string> {
  if (tty.isatty(0)) return '';
  const chunks: Buffer[] = [];
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let read: number;
    try {
      read = fs.readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EOF') break;
      if (code === 'EINTR') continue; // a signal arrived mid-read: read again
      if (code !== 'EAGAIN') throw error;
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      break;
    }
    if (read === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, read)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

export = { runHook, readStdin };
