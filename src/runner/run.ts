import { existsSync } from 'node:fs';
import { basename, relative, resolve, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient, ApiError, refPath } from '../cli/api-client.js';
import { normalizePrompt } from '../core/prompt-match.js';
import { tokenKindOf } from '../core/tokens.js';
import { childEnvironment, type SessionIdentity } from './child-env.js';
import { HookEvents } from './hook-events.js';
import { feedInbox, inputAdapterFor, watchForStop } from './inbox-feed.js';
import { openRunnerSocket } from './runner-socket.js';
import { spawnPlain, type AgentProcess } from './agent-process.js';
import { spawnUnderPty } from './pty-relay.js';
import { TerminalDelivery } from './terminal-delivery.js';
import { loadWitnessNative, typingHidden, witnessIsolation, type WitnessNative } from './native-witness.js';
import { TerminalWitness } from './terminal-witness.js';

interface RunOptions {
  command: string[];
  title?: string;
  agentRoot?: string;
  provider?: string;
  /** attach to an existing pending/stopped/failed session instead of creating one */
  session?: string;
  /** a declared parent hint (ignored when a session token makes the parent authenticated) */
  parent?: string;
  /** write leased inbox frames into the agent in its provider's input protocol */
  inbox?: boolean;
  /** do not append the agent's transcript */
  noTranscript?: boolean;
  /** run an interactive agent on the real terminal instead of the runner's PTY (no interactive delivery) */
  noPty?: boolean;
  /** whether standard input is a terminal (default: process.stdin.isTTY) */
  stdinIsTty?: boolean;
  /** `--prompt`: the person's words, recorded as theirs before the child starts and put for `{prompt}` in the command */
  prompt?: string;
  /** the runner was re-executed without its credentials in its environment block and is non-dumpable (witness-boot.ts) */
  credentialIsolated?: boolean;
  /** why a wanted witness cannot be had (witness-boot.ts) */
  witnessUnavailable?: string | null;
  env: NodeJS.ProcessEnv;
  baseUrl: string;
  /** where runner diagnostics go (stderr) */
  log: (line: string) => void;
}

const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const STOP_GRACE_MS = 10_000;
/** After the child exits, hooks it fired last (Codex's `notify` outlives its process) may still be connecting. */
const LATE_HOOK_QUIET_MS = 500;
const EXIT_UNSTARTABLE = 127;
const EXIT_USAGE = 2;

/** The CLI this runner belongs to, so the agent can call it without `warrant` on PATH. */
const OWN_CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));

/** The credential `warrant run` acts with: a session token (the child is its spawn), else the caller's token. */
function launcherCredential(env: NodeJS.ProcessEnv): { token: string; kind: 'session' | 'other' } | null {
  if (env.WARRANT_SESSION_TOKEN) return { token: env.WARRANT_SESSION_TOKEN, kind: 'session' };
  if (env.WARRANT_TOKEN) return { token: env.WARRANT_TOKEN, kind: 'other' };
  if (env.WARRANT_FLEET_KEY) return { token: env.WARRANT_FLEET_KEY, kind: 'other' };
  return null;
}

/** The placeholder `--prompt` fills in the command. */
const PROMPT_PLACEHOLDER = '{prompt}';

/** The command with every `{prompt}` replaced by the text, or null when it has none (the prompt would go nowhere). */
export function substitutePrompt(command: string[], text: string): string[] | null {
  if (!command.some((a) => a.includes(PROMPT_PLACEHOLDER))) return null;
  return command.map((a) => a.split(PROMPT_PLACEHOLDER).join(text));
}

/** `--provider`, else what the command's name says (`claude` → claude-code, `codex` → codex). */
function providerOf(options: Pick<RunOptions, 'provider' | 'command'>): string | undefined {
  if (options.provider) return options.provider;
  const name = basename(options.command[0] ?? '').replace(/\.(exe|js|cjs|mjs)$/, '');
  if (name === 'claude') return 'claude-code';
  if (name === 'codex') return 'codex';
  return undefined;
}

async function openSession(
  options: RunOptions,
  launcher: ApiClient,
  credentialKind: 'session' | 'other',
  provider: string | undefined,
): Promise<SessionIdentity> {
  // whether a person's terminal is on standard input: such a run is a capture channel for its hierarchy
  const delivery = { ...(options.inbox ? { delivery: 'runner' } : {}), runner: { tty: options.stdinIsTty ?? process.stdin.isTTY === true } };
  if (options.session) {
    const r = await launcher.json<{ session: { id: number; uid: string }; session_token: string }>(
      'POST',
      `/api/v1/sessions/${refPath(options.session)}/attach`,
      delivery,
    );
    return { url: options.baseUrl, sessionId: r.session.id, sessionUid: r.session.uid, sessionToken: r.session_token };
  }
  const body: Record<string, unknown> = { attach: true, ...delivery };
  if (options.title) body.title = options.title;
  if (options.agentRoot) body.agent_root = options.agentRoot;
  if (provider) body.provider = provider;
  if (options.parent && credentialKind !== 'session') body.parent_session_id = options.parent;
  const r = await launcher.json<{
    session: { id: number; uid: string };
    session_token: string;
    parent_resolution: { dropped: string | null; requested: string | null };
  }>('POST', '/api/v1/sessions', body);
  if (r.parent_resolution.dropped)
    options.log(`warrant run: parent hint ${JSON.stringify(r.parent_resolution.requested)} dropped: ${r.parent_resolution.dropped}`);
  return { url: options.baseUrl, sessionId: r.session.id, sessionUid: r.session.uid, sessionToken: r.session_token };
}

/**
 * The store's data dir when it lies inside the agent's working directory (where an agent looks
 * first), else null. The caller's WARRANT_DATA_DIR, else the default `./.warrant` if present.
 */
function dataDirInside(env: NodeJS.ProcessEnv, cwd: string): string | null {
  const dataDir = resolve(cwd, env.WARRANT_DATA_DIR || '.warrant');
  if (!existsSync(dataDir)) return null;
  const rel = relative(cwd, dataDir);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? dataDir : null;
}

/** Creates (or attaches to) the session, then runs the command under its identity. Returns the exit code. */
export async function runUnderSession(options: RunOptions): Promise<number> {
  const credential = launcherCredential(options.env);
  if (!credential) {
    options.log('warrant run: no credential — set WARRANT_SESSION_TOKEN (inside a session), or WARRANT_TOKEN (a fleet key or your human token).');
    return EXIT_USAGE;
  }
  const human = credential.kind === 'other' && tokenKindOf(credential.token) === 'human';
  let command = options.command;
  if (options.prompt !== undefined) {
    // refused before anything starts: the words are recorded as the person's, so only their token may
    if (!human) {
      options.log(
        'warrant run: --prompt needs your human token (WARRANT_TOKEN=wrt_h_…, without WARRANT_SESSION_TOKEN): the text is recorded as your words before the agent starts. Nothing was started.',
      );
      return EXIT_USAGE;
    }
    if (normalizePrompt(options.prompt) === '') {
      options.log('warrant run: --prompt is empty. Nothing was started.');
      return EXIT_USAGE;
    }
    const substituted = substitutePrompt(options.command, options.prompt);
    if (!substituted) {
      options.log(
        `warrant run: --prompt needs ${PROMPT_PLACEHOLDER} in the command, where the text goes (e.g. \`warrant run --prompt "check the deploy" -- claude -p ${PROMPT_PLACEHOLDER}\`). Nothing was started.`,
      );
      return EXIT_USAGE;
    }
    command = substituted;
  }
  const provider = providerOf(options);
  const adapter = options.inbox ? inputAdapterFor(provider) : null;
  if (options.inbox && !adapter) {
    // never feed an agent lines it ignores and then call them delivered
    options.log(
      `warrant run: unsupported-provider: --inbox needs an agent whose input protocol the runner speaks (claude-code, as \`claude -p --input-format stream-json\`); ${provider ? `provider ${JSON.stringify(provider)} is not one` : 'no provider was given or recognised (pass --provider)'}. Nothing was started.`,
    );
    return EXIT_USAGE;
  }
  const exposed = dataDirInside(options.env, process.cwd());
  if (exposed) {
    options.log(
      `warrant run: warning: the Warrant data dir ${exposed} lies inside the agent's working directory; an agent running as your OS user can read the store there. Move it out (WARRANT_DATA_DIR), or run agents as another OS user; \`warrant integrate\` writes a deny rule for it.`,
    );
  }
  const launcher = new ApiClient({ baseUrl: options.baseUrl, token: credential.token });
  const identity = await openSession(options, launcher, credential.kind, provider);
  // say which session this run is, so the person at the terminal can look it up or resume it
  options.log(
    `warrant run: ${options.session ? 'attached to' : 'created'} session #${identity.sessionId} (${identity.sessionUid}); \`warrant sessions show ${identity.sessionId}\` reads it`,
  );
  const self = new ApiClient({ baseUrl: options.baseUrl, token: identity.sessionToken });
  const report = async (sessionId: number, body: Record<string, unknown>): Promise<void> => {
    try {
      await self.json('POST', `/api/v1/sessions/${sessionId}/runtime`, body);
    } catch (error) {
      // a report that cannot land never changes the child's outcome
      const why = error instanceof ApiError ? `${error.token}: ${error.message}` : (error as Error).message;
      options.log(`warrant run: could not report ${String(body.state)} for #${sessionId} (${why})`);
    }
  };

  if (options.prompt !== undefined) {
    try {
      await launcher.json('POST', `/api/v1/sessions/${identity.sessionId}/run-prompt`, { text: options.prompt });
    } catch (error) {
      const why = error instanceof ApiError ? `${error.token}: ${error.message}` : (error as Error).message;
      await report(identity.sessionId, { state: 'error', reason: `--prompt was not recorded (${why})` });
      options.log(`warrant run: --prompt was not recorded (${why}). Nothing was started.`);
      return EXIT_USAGE;
    }
  }

  const tty = options.stdinIsTty ?? process.stdin.isTTY === true;
  const witnessing = tty ? await startWitness(options, { human, adapter: adapter !== null, launcher, sessionId: identity.sessionId }) : null;
  let relayPid = -1;
  const witness = witnessing
    ? new TerminalWitness({ client: witnessing.client, sessionId: identity.sessionId, isolation: () => witnessIsolation(relayPid), log: options.log })
    : null;

  const hooks = new HookEvents({
    client: self,
    sessionId: identity.sessionId,
    transcripts: !options.noTranscript,
    log: options.log,
    ...(witness ? { witness } : {}),
  });
  const socket = await openRunnerSocket(
    (r) => hooks.handle(r),
    () => hooks.takeWarning(),
  );
  const [cmd, ...args] = command;
  const env = childEnvironment(options.env, identity, { runnerSocket: socket.path, cli: OWN_CLI });
  // an interactive agent runs under the runner's PTY, so the runner can type inbox items into it; under the witness, any command does
  const interactive = !adapter && !options.noPty && tty && (provider === 'claude-code' || provider === 'codex' || witness !== null);
  let terminalDelivery: TerminalDelivery | null = null;
  let agent: AgentProcess;
  let masterFd = -1;
  const onKeys = (bytes: Buffer) => {
    terminalDelivery?.line.feed(bytes);
    if (witness && witnessing) witness.keys(bytes, !typingHidden(witnessing.native, masterFd));
  };
  const relay = interactive
    ? await spawnUnderPty(cmd!, args, env, { onKeys, filterOutput: witness !== null }).catch((error: unknown) => {
        // no PTY (node-pty did not build here): the agent still runs, on the terminal itself
        options.log(`warrant run: no PTY (${(error as Error).message}); the agent runs on your terminal directly and inbox items are not typed into it.`);
        return null;
      })
    : null;
  if (relay) {
    relayPid = relay.pid;
    masterFd = relay.masterFd;
    // what the runner types itself is never the person's turn
    const typing = {
      type: (bytes: string) => {
        witness?.runnerTyped();
        relay.type(bytes);
      },
      holdKeys: (hold: boolean) => relay.holdKeys(hold),
    };
    terminalDelivery = new TerminalDelivery(self, identity.sessionId, typing, options.log);
    agent = relay;
  } else {
    agent = spawnPlain(cmd!, args, env, adapter !== null);
  }
  const { ended } = agent;
  const startError = await agent.spawned;
  if (startError) {
    await socket.close();
    await witness?.close();
    witnessing?.release();
    await report(identity.sessionId, { state: 'error', reason: `could not start ${cmd}: ${startError.message}` });
    options.log(`warrant run: could not start ${cmd}: ${startError.message}`);
    return EXIT_UNSTARTABLE;
  }
  const started = report(identity.sessionId, { state: 'started' });
  if (terminalDelivery) {
    hooks.onSelfState((state) => terminalDelivery?.agentState(state));
    terminalDelivery.start();
  }

  const forward = (signal: NodeJS.Signals) => () => agent.kill(signal);
  const handlers = FORWARDED_SIGNALS.map((s) => [s, forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);

  const stopInbox = adapter && agent.input ? feedInbox(self, identity.sessionId, adapter, agent.input, options.log) : null;
  // a stop request (a `control` item) ends the process: SIGTERM, then SIGKILL after a grace period
  const stopWatch = watchForStop(
    self,
    identity.sessionId,
    () => {
      options.log(`warrant run: stop requested for #${identity.sessionId}; sending SIGTERM`);
      agent.input?.end();
      forward('SIGTERM')();
      setTimeout(() => forward('SIGKILL')(), STOP_GRACE_MS).unref();
    },
    options.log,
  );

  const outcome = await ended;
  const code = 'code' in outcome ? outcome.code : EXIT_UNSTARTABLE;
  for (const [s, h] of handlers) process.off(s, h);
  stopWatch();
  terminalDelivery?.stop();
  await stopInbox?.();
  await started;
  // the last hooks (a Stop, Codex's notify) may still be arriving: take them before the end
  await socket.settle(LATE_HOOK_QUIET_MS);
  await hooks.drain();
  await socket.close();
  // the closing report before `exited`, which revokes the witness credential
  await witness?.close();
  witnessing?.release();
  for (const orphan of hooks.openChildren()) {
    await report(orphan, { state: 'error', reason: 'the agent process that ran this subagent exited before it reported its end' });
  }
  if ('error' in outcome) await report(identity.sessionId, { state: 'error', reason: `${cmd}: ${outcome.error.message}` });
  else await report(identity.sessionId, { state: 'exited', code });
  return code;
}

interface Witnessing {
  native: WitnessNative;
  /** holds the witness credential */
  client: ApiClient;
  /** gives the terminal back (TIOCNXCL) */
  release(): void;
}

/**
 * Whether this run's terminal is witnessed, and if so its credential. Says once on stderr when it
 * is not: the terminal is then a gap for the hierarchy (docs/human-messages.md).
 */
async function startWitness(
  options: RunOptions,
  run: { human: boolean; adapter: boolean; launcher: ApiClient; sessionId: number },
): Promise<Witnessing | null> {
  const notWitnessed = (why: string) => {
    options.log(
      `warrant run: this terminal is not witnessed (${why}); a prompt typed here is recorded as a gap, and \`warrant check\` says cannot-say rather than none.`,
    );
    return null;
  };
  if (!run.human) return notWitnessed('no human token: set WARRANT_TOKEN to your own wrt_h_ token to have what you type recorded as yours');
  if (run.adapter) return notWitnessed("--inbox owns the agent's input");
  if (options.noPty) return notWitnessed('--no-pty: the runner does not relay your keys');
  if (!options.credentialIsolated) return notWitnessed(options.witnessUnavailable ?? 'the runner could not keep its credential out of its environment block');
  const loaded = loadWitnessNative();
  if ('error' in loaded) return notWitnessed(loaded.error);
  const { native } = loaded;
  try {
    native.setExclusive(0, true);
  } catch (error) {
    return notWitnessed(`the terminal could not be taken exclusively: ${(error as Error).message}`);
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    try {
      native.setExclusive(0, false);
    } catch {
      // the terminal is gone
    }
  };
  process.once('exit', release);
  try {
    const r = await run.launcher.json<{ witness_token: string }>('POST', `/api/v1/sessions/${run.sessionId}/witness`, {});
    return { native, client: new ApiClient({ baseUrl: options.baseUrl, token: r.witness_token }), release };
  } catch (error) {
    release();
    const why = error instanceof ApiError ? `${error.token}: ${error.message}` : (error as Error).message;
    return notWitnessed(`the witness credential could not be had: ${why}`);
  }
}
