import { CAPTURE_CHANNELS, type CaptureChannel, type TerminalRun } from '../../core/coverage.js';
import type { Executor } from '../../store/dialect/dialect.js';
import { appendCoverage, lastCoverageState } from '../../store/human-messages-repo.js';
import { terminalActivationsOf } from '../../store/session-runners-repo.js';
import { runKey, terminalRunRows, type TerminalRunRows } from '../../store/terminal-witness-repo.js';
import { decideTerminalRun, type TerminalRunVerdict } from '../../core/terminal-witness.js';
import { isActive, type SessionStatus } from '../../core/lifecycle.js';
import { getSetting } from '../../store/settings-repo.js';
import { findUserByKey, listUsers } from '../../store/users-repo.js';
import { SETTING_ADMIN_USER, SETTING_SLACK_SIGNING_SECRET } from '../bootstrap.js';
import type { AppContext } from '../context.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';
import { countActiveHumanTokens } from '../../store/tokens-repo.js';
import { sessionActivations } from '../../store/sessions-repo.js';

interface ChannelState {
  instrumented: boolean;
  /** why, in words the coverage log and the gap fix can show */
  reason: string;
  /** when off: why and what turns it on, in the start banner's plain words */
  off?: { why: string; turnOn: string };
  /**
   * Whom capture on this channel is credited to, when one person (single-admin web capture: the
   * admin key). A change of that person is a coverage change even when the channel stays instrumented.
   */
  creditedTo?: string;
}

/**
 * docs/human-messages.md's "instrumented when" column, read from the store now. Deployment-wide: the
 * question must be answerable without the message that was not recorded.
 */
export async function currentChannelStates(db: Executor, ctx: AppContext): Promise<Record<CaptureChannel, ChannelState>> {
  const users = (await listUsers(db)).filter((u) => !u.removedAt);
  let web: ChannelState;
  if (ctx.mode === 'multi-user') {
    web =
      users.length > 0
        ? { instrumented: true, reason: `multi-user mode with ${users.length} roster user(s) who can sign in` }
        : {
            instrumented: false,
            reason: 'multi-user mode with no roster user who can sign in',
            off: { why: 'nobody on the roster can sign in yet', turnOn: '`warrant users add <key> --name "Their Name"`' },
          };
  } else {
    const key = await getSetting(db, SETTING_ADMIN_USER);
    const admin = key ? await findUserByKey(db, key) : null;
    web =
      admin && !admin.removedAt
        ? { instrumented: true, reason: `single-admin mode; the admin key ${admin.key} resolves to a roster row`, creditedTo: admin.key }
        : {
            instrumented: false,
            reason: key
              ? `single-admin mode; the admin key ${key} does not resolve to a roster row`
              : 'single-admin mode with no admin key (WARRANT_ADMIN_USER)',
            off: key
              ? { why: `the admin ${key} is not on the roster`, turnOn: `\`warrant users add ${key} --admin\`` }
              : { why: 'no admin yet', turnOn: '`warrant init` (you become the admin), or the setup code below' },
          };
  }
  const secret = await getSetting(db, SETTING_SLACK_SIGNING_SECRET);
  const slackUsers = users.filter((u) => u.slackUserIds.length > 0).length;
  const slack: ChannelState =
    secret && slackUsers > 0
      ? { instrumented: true, reason: `Slack ingress configured; ${slackUsers} roster user(s) with a Slack id` }
      : !secret
        ? {
            instrumented: false,
            reason: 'Slack ingress is not configured (no signing secret)',
            off: { why: 'no Slack signing secret', turnOn: '`warrant settings set slack_signing_secret <secret>` (docs/integrations.md)' },
          }
        : {
            instrumented: false,
            reason: 'no roster user has a Slack id',
            off: { why: 'nobody on the roster has a Slack id', turnOn: '`warrant users add <key> --slack <Slack user id>`' },
          };
  const n = await countActiveHumanTokens(db);
  const cli: ChannelState =
    n > 0
      ? { instrumented: true, reason: `${n} active human token(s)` }
      : {
          instrumented: false,
          reason: 'no roster user holds an active human token',
          off: { why: 'nobody holds a human token yet', turnOn: '`warrant users tokens issue <key>`' },
        };
  return { web_ui: web, slack, cli };
}

/** The runs with a TTY of these sessions (current and past activations), by session, each decided at `now`. */
export async function terminalRunsOf(db: Executor, sessionIds: readonly number[], now: string): Promise<Map<number, TerminalRun[]>> {
  const out = new Map<number, TerminalRun[]>();
  const activations = await terminalActivationsOf(db, sessionIds);
  if (activations.length === 0) return out;
  const ttySessions = [...new Set(activations.map((a) => a.sessionId))];
  const rows = await terminalRunRows(db, ttySessions);
  const current = await currentRunsOf(db, ttySessions);
  for (const a of activations) {
    const list = out.get(a.sessionId) ?? [];
    const verdict = terminalRunWitnessed(a, rows, current.get(a.sessionId), now);
    list.push({
      activation: a.activation,
      attachedAt: a.attachedAt,
      witnessed: verdict.witnessed,
      firstUnmatchedAt: verdict.firstUnmatchedAt,
      matchPending: verdict.matchPending,
    });
    out.set(a.sessionId, list);
  }
  return out;
}

/**
 * The terminal channel's "instrumented when" for one run (docs/design/terminal-channel.md):
 * the store's turns, reports, witness and closing report for it, judged by the one rule
 * (core/terminal-witness.ts).
 */
function terminalRunWitnessed(
  run: { sessionId: number; activation: number },
  rows: TerminalRunRows,
  session: { activation: number; status: SessionStatus } | undefined,
  now: string,
): TerminalRunVerdict {
  const key = runKey(run.sessionId, run.activation);
  const witness = rows.witnesses.get(key);
  return decideTerminalRun(
    {
      witnessMinted: witness !== undefined,
      turns: rows.turns.get(key) ?? [],
      reports: rows.reports.get(key) ?? [],
      close: witness && witness.closedTurns !== null ? { turns: witness.closedTurns } : null,
      live: session !== undefined && session.activation === run.activation && isActive(session.status),
      heardAt: witness?.heardAt ?? null,
    },
    now,
  );
}

async function currentRunsOf(db: Executor, sessionIds: readonly number[]): Promise<Map<number, { activation: number; status: SessionStatus }>> {
  return new Map((await sessionActivations(db, sessionIds)).map((r) => [r.id, { activation: r.activation, status: r.status as SessionStatus }]));
}

/** Appends a coverage-log row for every channel whose state changed, in the caller's transaction. */
export async function syncCoverage(w: Pick<WriteScope, 'tx' | 'ctx' | 'now' | 'audit'>): Promise<void> {
  const states = await currentChannelStates(w.tx, w.ctx);
  const last = await lastCoverageState(w.tx);
  for (const channel of CAPTURE_CHANNELS) {
    const state = states[channel];
    // the first observation is logged too (instrumented or not), so the log says when we looked;
    // a new admin credited with web capture is a change too (its reason names the admin)
    const before = last.get(channel);
    if (before && before.instrumented === state.instrumented && (state.creditedTo === undefined || before.reason === state.reason)) continue;
    await appendCoverage(w.tx, { channel, instrumented: state.instrumented, reason: state.reason, now: w.now });
    w.audit({ kind: 'coverage_changed', at: w.now, channel, instrumented: state.instrumented, reason: state.reason });
  }
}

/** At start: the first observation of every channel, and any change made behind our back. */
export async function syncCoverageAtStart(ctx: AppContext): Promise<void> {
  await inWriteTx(ctx, async (w) => syncCoverage(w));
}

const CHANNEL_LABEL: Record<CaptureChannel, string> = { web_ui: 'web UI', slack: 'Slack', cli: 'CLI' };

/**
 * The start banner's capture lines (docs/api.md: `warrant serve` says which channels record what people ask): calm —
 * what is on, then one line per channel that is off with what turns it on, then the terminal, which is per run.
 */
export async function coverageBannerLines(ctx: AppContext): Promise<string[]> {
  const states = await currentChannelStates(ctx.store.kysely, ctx);
  const on = CAPTURE_CHANNELS.filter((c) => states[c].instrumented);
  const off = CAPTURE_CHANNELS.filter((c) => !states[c].instrumented);
  return [
    on.length > 0
      ? `Recording what people ask on: ${on.map((c) => `${CHANNEL_LABEL[c]} (${states[c].reason})`).join('; ')}.`
      : 'Recording what people ask: no channel is on yet (REST, MCP, the CLI and the web UI work; only the record of human words waits).',
    ...(off.length > 0 ? [`Off until set up (meanwhile \`warrant check\` says cannot-say, never none, where it matters):`] : []),
    ...off.map((c) => {
      const why = states[c].off;
      return `  ${CHANNEL_LABEL[c].padEnd(7)} ${why ? `${why.why} — ${why.turnOn}` : states[c].reason}`;
    }),
    // per run, not deployment-wide: said here so an operator is not surprised by the gap
    'Terminal: `warrant run` with a human token on a TTY witnesses what is typed there; each run says whether it is witnessed.',
  ];
}
