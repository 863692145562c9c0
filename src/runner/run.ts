import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { ApiClient, ApiError, refPath } from '../cli/api-client.js';
import { childEnvironment, type SessionIdentity } from './child-env.js';

export interface RunOptions {
  command: string[];
  title?: string;
  agentRoot?: string;
  provider?: string;
  /** attach to an existing pending/stopped/failed session instead of creating one */
  session?: string;
  /** a declared parent hint (ignored when a session token makes the parent authenticated) */
  parent?: string;
  /** feed leased inbox frames to the child's stdin */
  inbox?: boolean;
  env: NodeJS.ProcessEnv;
  baseUrl: string;
  /** where runner diagnostics go (stderr) */
  log: (line: string) => void;
}

const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const STOP_GRACE_MS = 10_000;

/** The credential `warrant run` acts with: a session token (the child is its spawn), else the caller's token. */
function launcherCredential(env: NodeJS.ProcessEnv): { token: string; kind: 'session' | 'other' } | null {
  if (env.WARRANT_SESSION_TOKEN) return { token: env.WARRANT_SESSION_TOKEN, kind: 'session' };
  if (env.WARRANT_TOKEN) return { token: env.WARRANT_TOKEN, kind: 'other' };
  if (env.WARRANT_FLEET_KEY) return { token: env.WARRANT_FLEET_KEY, kind: 'other' };
  return null;
}

/** Creates (or attaches to) the session, then runs the command under its identity. Returns the exit code. */
export async function runUnderSession(options: RunOptions): Promise<number> {
  const credential = launcherCredential(options.env);
  if (!credential) {
    options.log('warrant run: no credential — set WARRANT_SESSION_TOKEN (inside a session), or WARRANT_TOKEN (a fleet key or your human token).');
    return 2;
  }
  const launcher = new ApiClient({ baseUrl: options.baseUrl, token: credential.token });
  let identity: SessionIdentity;
  if (options.session) {
    const r = await launcher.json<{ session: { id: number; uid: string }; session_token: string }>('POST', `/api/v1/sessions/${refPath(options.session)}/attach`);
    identity = { url: options.baseUrl, sessionId: r.session.id, sessionUid: r.session.uid, sessionToken: r.session_token };
  } else {
    const body: Record<string, unknown> = { attach: true };
    if (options.title) body.title = options.title;
    if (options.agentRoot) body.agent_root = options.agentRoot;
    if (options.provider) body.provider = options.provider;
    if (options.parent && credential.kind !== 'session') body.parent_session_id = options.parent;
    const r = await launcher.json<{ session: { id: number; uid: string }; session_token: string; parent_resolution: { dropped: string | null; requested: string | null } }>(
      'POST',
      '/api/v1/sessions',
      body,
    );
    if (r.parent_resolution.dropped) options.log(`warrant run: parent hint ${JSON.stringify(r.parent_resolution.requested)} dropped: ${r.parent_resolution.dropped}`);
    identity = { url: options.baseUrl, sessionId: r.session.id, sessionUid: r.session.uid, sessionToken: r.session_token };
  }
  const self = new ApiClient({ baseUrl: options.baseUrl, token: identity.sessionToken });
  const report = async (body: Record<string, unknown>): Promise<void> => {
    try {
      await self.json('POST', `/api/v1/sessions/${identity.sessionId}/runtime`, body);
    } catch (error) {
      // a report that cannot land never changes the child's outcome
      const why = error instanceof ApiError ? `${error.token}: ${error.message}` : (error as Error).message;
      options.log(`warrant run: could not report ${String(body.state)} for #${identity.sessionId} (${why})`);
    }
  };

  const [cmd, ...args] = options.command;
  let child: ChildProcess;
  try {
    child = spawn(cmd!, args, { env: childEnvironment(options.env, identity), stdio: [options.inbox ? 'pipe' : 'inherit', 'inherit', 'inherit'] });
  } catch (error) {
    await report({ state: 'error', reason: `could not start ${cmd}: ${(error as Error).message}` });
    return 127;
  }
  const started = await new Promise<Error | null>((resolve) => {
    child.once('spawn', () => resolve(null));
    child.once('error', (error) => resolve(error));
  });
  if (started) {
    await report({ state: 'error', reason: `could not start ${cmd}: ${started.message}` });
    options.log(`warrant run: could not start ${cmd}: ${started.message}`);
    return 127;
  }
  await report({ state: 'started' });

  const forward = (signal: NodeJS.Signals) => () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  const handlers = FORWARDED_SIGNALS.map((s) => [s, forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);

  const { feedInbox, watchForStop } = await import('./inbox-feed.js');
  const stopInbox = options.inbox && child.stdin ? feedInbox(self, identity.sessionId, child.stdin, options.log) : null;
  // a stop request (spec 01: a `control` item) ends the process: SIGTERM, then SIGKILL after a grace period
  const stopWatch = watchForStop(
    self,
    identity.sessionId,
    () => {
      options.log(`warrant run: stop requested for #${identity.sessionId}; sending SIGTERM`);
      forward('SIGTERM')();
      setTimeout(() => forward('SIGKILL')(), STOP_GRACE_MS).unref();
    },
    options.log,
  );

  const code = await new Promise<number>((resolve) => {
    child.once('exit', (exitCode, signal) => {
      resolve(exitCode ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
  for (const [s, h] of handlers) process.off(s, h);
  stopWatch();
  await stopInbox?.();
  await report({ state: 'exited', code });
  return code;
}
