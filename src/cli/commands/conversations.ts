import type { Command } from 'commander';
import { BACKFILL_OUTCOMES, type BackfillOutcome } from '../../core/transcript-frames.js';
import { ApiClient, ApiError, clientOptionsFromEnv, refPath } from '../api-client.js';
import { claudeConfigDir, listTranscripts, scanTranscript } from '../claude-transcripts.js';
import { CliExit, EXIT_FAILURE, printJson, printMarkdown, printText } from '../output.js';
import { ProgressBar } from '../progress.js';

/**
 * `warrant conversations backfill [--dry-run]` (docs/messages.md): recovers older Claude Code
 * conversations of sessions on the host where the transcripts are. A transcript whose
 * user-turn `warrant-message` frames name exactly one session of this deployment is recorded
 * as that session's `estimated` conversation, through the admin API
 * (`POST /api/v1/conversations/estimated`, which decides under a lock: a second run appends
 * nothing). `--dry-run` only reads (the transcripts, and the server's GETs) and writes nothing.
 *
 * Credential: an admin's human token in WARRANT_TOKEN (the server refuses anything else).
 */
const PROVIDER = 'claude-code';

interface TranscriptReport {
  path: string;
  conversation_id: string;
  outcome: BackfillOutcome;
  session_id?: number;
  session_ids?: number[];
  reason?: string;
}

type BackfillReport = {
  claude_config_dir: string;
  projects_dir: string;
  dry_run: boolean;
  scanned: number;
  malformed_lines: number;
  malformed_frames: number;
  transcripts: TranscriptReport[];
} & Record<BackfillOutcome, number>;

function abort(error: ApiError): never {
  const hint =
    error.status === 401 || error.status === 403
      ? " Backfill writes through the admin API: set WARRANT_TOKEN to an admin's human token (warrant users tokens issue <admin-key>)."
      : '';
  throw new CliExit(EXIT_FAILURE, `error: ${error.token}: ${error.message}${hint}`);
}

/** What the server would answer, read without writing (`--dry-run`). */
async function wouldRecord(client: ApiClient, sessionId: number, conversationId: string): Promise<{ outcome: BackfillOutcome; reason?: string }> {
  let session: { provider: string | null };
  let conversations: { conversation_id: string; status: string }[];
  try {
    session = (await client.json<{ session: { provider: string | null } }>('GET', `/api/v1/sessions/${sessionId}`)).session;
    conversations = (await client.json<{ conversations: { conversation_id: string; status: string }[] }>('GET', `/api/v1/sessions/${sessionId}/conversations`))
      .conversations;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return { outcome: 'ambiguous', reason: 'target-not-found' };
    if (error instanceof ApiError) abort(error);
    throw error;
  }
  if (session.provider !== null && session.provider !== PROVIDER) return { outcome: 'ambiguous', reason: 'provider-mismatch' };
  const entry = conversations.find((c) => c.conversation_id === conversationId);
  if (!entry) return { outcome: 'attributed' };
  return { outcome: entry.status === 'estimated' ? 'already_estimated' : 'skipped_observed' };
}

async function record(client: ApiClient, sessionId: number, conversationId: string, path: string): Promise<{ outcome: BackfillOutcome; reason?: string }> {
  try {
    const r = await client.json<{ outcome: BackfillOutcome }>('POST', '/api/v1/conversations/estimated', {
      session_id: sessionId,
      provider: PROVIDER,
      conversation_id: conversationId,
      transcript_path: path,
    });
    return { outcome: r.outcome };
  } catch (error) {
    // the frames name a session this deployment does not have (deleted, or another server's),
    // or one that runs on another provider: not attributable here
    if (error instanceof ApiError && (error.token === 'session-not-found' || error.status === 404)) return { outcome: 'ambiguous', reason: 'target-not-found' };
    if (error instanceof ApiError && error.token === 'provider-mismatch') return { outcome: 'ambiguous', reason: 'provider-mismatch' };
    if (error instanceof ApiError) abort(error);
    throw error;
  }
}

async function runBackfill(client: ApiClient, options: { dryRun: boolean; env: NodeJS.ProcessEnv; progress?: ProgressBar }): Promise<BackfillReport> {
  const root = claudeConfigDir(options.env);
  const listing = await listTranscripts(root);
  const report = {
    claude_config_dir: root,
    projects_dir: listing.projectsDir,
    dry_run: options.dryRun,
    scanned: 0,
    ...(Object.fromEntries(BACKFILL_OUTCOMES.map((o) => [o, 0])) as Record<BackfillOutcome, number>),
    malformed_lines: 0,
    malformed_frames: 0,
    transcripts: [] as TranscriptReport[],
  };
  for (const file of listing.files) {
    report.scanned++;
    const base = { path: file.path, conversation_id: file.conversationId };
    let entry: TranscriptReport;
    const read = await scanTranscript(file.path);
    if (!read.ok) entry = { ...base, outcome: 'unreadable', reason: read.reason };
    else {
      report.malformed_lines += read.scan.malformedLines;
      report.malformed_frames += read.scan.malformedFrames;
      const verdict = read.scan.verdict();
      if (verdict.kind === 'no_frame') entry = { ...base, outcome: 'no_frame' };
      else if (verdict.kind === 'ambiguous') entry = { ...base, outcome: 'ambiguous', session_ids: verdict.sessionIds, reason: 'several-targets' };
      else {
        const r = options.dryRun
          ? await wouldRecord(client, verdict.sessionId, file.conversationId)
          : await record(client, verdict.sessionId, file.conversationId, file.path);
        entry = { ...base, outcome: r.outcome, session_id: verdict.sessionId, ...(r.reason ? { reason: r.reason } : {}) };
      }
    }
    report[entry.outcome]++;
    report.transcripts.push(entry);
    options.progress?.update(report.scanned, listing.files.length);
  }
  options.progress?.finish(report.scanned, listing.files.length);
  return report;
}

function reportText(r: BackfillReport): string {
  const would = r.dry_run ? ' (dry run: nothing was written; "attributed" says what would be)' : '';
  if (r.scanned === 0) return `No transcripts under ${r.projects_dir}${would}.`;
  return [
    `Scanned ${r.scanned} transcript${r.scanned === 1 ? '' : 's'} under ${r.projects_dir}${would}.`,
    ...BACKFILL_OUTCOMES.map((o) => `  ${o}: ${r[o]}`),
    `  malformed_lines: ${r.malformed_lines}`,
    `  malformed_frames: ${r.malformed_frames}`,
  ].join('\n');
}

export function registerConversationCommands(program: Command): void {
  const conversations = program.command('conversations').description('provider conversation history');
  conversations
    .command('list <ref>')
    .description("a session's provider conversations, current first, then the most recently observed (observed or estimated, and who reported them)")
    .option('--json', 'print JSON (the REST payload)')
    .action(async (ref: string, opts: { json?: boolean }) => {
      const client = new ApiClient(clientOptionsFromEnv(process.env));
      const url = `/api/v1/sessions/${refPath(ref)}/conversations`;
      if (opts.json) return printJson(await client.json('GET', url));
      printMarkdown(await client.text('GET', `${url}?format=markdown`));
    });
  conversations
    .command('backfill')
    .description(
      "recover older Claude Code conversations from transcripts on this host ($CLAUDE_CONFIG_DIR or ~/.claude): a transcript whose warrant-message frames name exactly one session becomes its estimated conversation. Needs an admin's human token in WARRANT_TOKEN.",
    )
    .option('--dry-run', 'read and report only; write nothing')
    .option('--json', 'print the report as JSON (with one entry per transcript)')
    .action(async (opts: { dryRun?: boolean; json?: boolean }) => {
      const client = new ApiClient(clientOptionsFromEnv(process.env));
      const report = await runBackfill(client, { dryRun: opts.dryRun === true, env: process.env, progress: new ProgressBar('scanning transcripts') });
      if (opts.json) return printJson(report);
      printText(reportText(report));
    });
}
