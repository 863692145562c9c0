import { ApiError, type ApiClient } from '../cli/api-client.js';
import { promptDigest, promptLength } from '../core/prompt-match.js';
import type { HookReport } from './runner-socket.js';
import type { PromptSnapshot, PromptWitness } from './terminal-witness.js';
import { TranscriptTail } from './transcript-tail.js';

/** Which Warrant session a hook event belongs to. */
interface Target {
  sessionId: number;
  /** the provider conversation the event speaks of */
  conversationId: string | null;
  /** a child this runner created (a built-in subagent or a nested agent) */
  child: boolean;
}

interface HookEventOptions {
  client: ApiClient;
  sessionId: number;
  transcripts: boolean;
  log: (line: string) => void;
  /** the runner's own agent became ready for a turn (started, or its turn ended) or took one */
  onSelfState?: (state: 'ready' | 'busy') => void;
  /** the terminal witness, when the runner witnesses its terminal */
  witness?: PromptWitness;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * Turns the agent's hook events into reports on the right session, one at a time, off the
 * hook's path (docs/design/agent-runtimes.md, "hooks"):
 *
 * - the first provider conversation the runner sees is its own session's; `/clear` (and an
 *   in-process resume) rebinds it — the same session, a new conversation row;
 * - an event carrying `agent_id` is a built-in subagent's: a child session the parent's token
 *   creates (`SubagentStart`), reports for, and ends (`SubagentStop`);
 * - any other conversation reporting with this token (a nested agent the model started
 *   without `warrant run`) becomes a child too, and never idles or rebinds the parent;
 * - `UserPromptSubmit` reports the prompt's digest and length (never the words); the server
 *   alone decides what it acknowledges; then, under the terminal witness, the latest typed turn
 *   is recorded when the report's text equals it;
 * - stop events append what the transcript gained.
 */
export class HookEvents {
  private chain: Promise<void> = Promise.resolve();
  /** every conversation the runner's own session has spoken in (a late SessionEnd after /clear names the old one) */
  private readonly own = new Set<string>();
  private readonly children = new Map<string, number>();
  private readonly ended = new Set<number>();
  private readonly warnings: string[] = [];
  private readonly transcript: TranscriptTail;

  constructor(private readonly options: HookEventOptions) {
    this.transcript = new TranscriptTail(options.client, options.log);
  }

  /** Listen for the runner's own agent becoming ready for a turn or taking one. */
  onSelfState(listener: (state: 'ready' | 'busy') => void): void {
    this.options.onSelfState = listener;
  }

  /** A warning for the person, shown once by the next hook (a report that did not land). */
  takeWarning(): string | null {
    return this.warnings.shift() ?? null;
  }

  handle(report: HookReport): void {
    // the witness's candidate turn is taken (or expired) when the event arrives, not when its turn in the queue comes
    const snapshot = this.options.witness?.arrived(report) ?? null;
    this.chain = this.chain.then(() =>
      this.process(report, snapshot).catch((error: unknown) => {
        const why = error instanceof ApiError ? `${error.token}: ${error.message}` : (error as Error).message;
        this.options.log(`warrant run: could not record ${report.event}: ${why}`);
        if (this.warnings.length < 5) this.warnings.push(`the ${report.event} event was not recorded (${why}).`);
      }),
    );
  }

  /** Waits for every queued report. */
  drain(): Promise<void> {
    return this.chain;
  }

  /** Children that never reported their end when the runtime exits. */
  openChildren(): number[] {
    return [...new Set(this.children.values())].filter((id) => !this.ended.has(id));
  }

  private async process(report: HookReport, snapshot: PromptSnapshot): Promise<void> {
    const { provider, event, payload } = report;
    const target = await this.targetOf(provider, event, payload);
    // null: a late report about a child that already ended (Codex's notify after SubagentStop)
    if (!target) return;
    if (!target.child) {
      if (event === 'SessionStart' || event === 'Stop' || event === 'TurnComplete') this.options.onSelfState?.('ready');
      if (event === 'UserPromptSubmit') this.options.onSelfState?.('busy');
    }
    const path = (p: string) => `/api/v1/sessions/${target.sessionId}${p}`;
    const runtime = (body: Record<string, unknown>) => this.options.client.json('POST', path('/runtime'), body);
    switch (event) {
      case 'SessionStart':
      case 'TurnComplete':
        if (target.conversationId) {
          await this.options.client.json('POST', path('/conversation'), {
            provider,
            conversation_id: target.conversationId,
            ...(text(payload.transcript_path) ? { transcript_path: payload.transcript_path } : {}),
          });
        }
        await runtime({ state: event === 'TurnComplete' ? 'idle' : 'started' });
        return;
      case 'UserPromptSubmit': {
        await runtime({ state: 'started' });
        if (typeof payload.prompt === 'string') {
          await this.options.client.json('POST', path('/prompts'), { digest: await promptDigest(payload.prompt), length: promptLength(payload.prompt) });
          // after the report has landed: the server matches a witnessed turn only to a report it holds
          if (!target.child) await this.options.witness?.promptReported(snapshot, payload.prompt);
        }
        return;
      }
      case 'Stop':
        await this.appendTranscript(target, provider, text(payload.transcript_path));
        await runtime({ state: 'idle' });
        return;
      case 'SubagentStop':
        await this.appendTranscript(target, provider, text(payload.agent_transcript_path) ?? text(payload.transcript_path));
        await runtime({ state: 'idle' });
        await runtime({ state: 'exited', code: 0 });
        this.ended.add(target.sessionId);
        return;
      case 'SessionEnd':
        await this.appendTranscript(target, provider, text(payload.transcript_path));
        if (target.child) {
          await runtime({ state: 'exited', code: 0 });
          this.ended.add(target.sessionId);
        }
        return;
      default:
        return;
    }
  }

  private async appendTranscript(target: Target, provider: string, transcriptPath: string | null): Promise<void> {
    if (!this.options.transcripts || !transcriptPath || !target.conversationId) return;
    await this.transcript.append(target.sessionId, provider, target.conversationId, transcriptPath);
  }

  private async targetOf(provider: string, event: string, payload: Record<string, unknown>): Promise<Target | null> {
    const agentId = text(payload.agent_id);
    if (agentId) {
      const sessionId = await this.child(
        provider,
        'subagent',
        `agent:${agentId}`,
        agentId,
        text(payload.agent_type) ?? 'subagent',
        text(payload.agent_transcript_path),
      );
      return { sessionId, conversationId: agentId, child: true };
    }
    const conversationId = text(payload.session_id) ?? text(payload['thread-id']) ?? text(payload.thread_id);
    const self: Target = { sessionId: this.options.sessionId, conversationId, child: false };
    if (!conversationId) return self;
    // the first conversation the runner sees is its own session's (the binding)
    if (this.own.size === 0 || this.own.has(conversationId)) {
      this.own.add(conversationId);
      return self;
    }
    // Codex reports a subagent's turns under its own thread id, which is the subagent's agent_id
    const known = this.children.get(`agent:${conversationId}`) ?? this.children.get(`conversation:${conversationId}`);
    if (known !== undefined) return this.ended.has(known) ? null : { sessionId: known, conversationId, child: true };
    // `/clear` or an in-process resume: the same session speaks in a new conversation
    if (event === 'SessionStart' && (payload.source === 'clear' || payload.source === 'resume')) {
      this.own.add(conversationId);
      return self;
    }
    const sessionId = await this.child(provider, 'nested-agent', `conversation:${conversationId}`, conversationId, provider, text(payload.transcript_path));
    return { sessionId, conversationId, child: true };
  }

  private async child(
    provider: string,
    origin: 'subagent' | 'nested-agent',
    key: string,
    conversationId: string,
    agentRoot: string,
    transcriptPath: string | null,
  ): Promise<number> {
    const known = this.children.get(key);
    if (known !== undefined && !this.ended.has(known)) return known;
    const r = await this.options.client.json<{ session: { id: number } }>('POST', `/api/v1/sessions/${this.options.sessionId}/children`, {
      origin,
      provider,
      conversation_id: conversationId,
      agent_root: agentRoot,
      ...(transcriptPath ? { transcript_path: transcriptPath } : {}),
    });
    this.children.set(key, r.session.id);
    this.ended.delete(r.session.id);
    return r.session.id;
  }
}
