import type { Executor } from './dialect/dialect.js';

/** docs/design/terminal-channel.md: the witness of one activation (its credential lives in `tokens`). */
interface TerminalWitnessRecord {
  sessionId: number;
  activation: number;
  credentialId: number;
  userId: number;
  mintedAt: string;
  closedAt: string | null;
  closedTurns: number | null;
  /** the last sign of life of the runner: its latest heartbeat, else the mint */
  heardAt: string;
}

interface TerminalTurnRecord {
  id: number;
  sessionId: number;
  activation: number;
  digest: string;
  length: number;
  reliable: boolean;
  pasted: boolean;
  reportedAt: string;
  humanMessageId: number | null;
}

type PromptMatchKind = 'inbox_item' | 'terminal_turn' | 'run_prompt';

type WitnessRow = {
  session_id: number;
  activation: number;
  credential_id: number;
  user_id: number;
  minted_at: string;
  closed_at: string | null;
  closed_turns: number | null;
  heard_at: string | null;
};

function toWitness(r: WitnessRow): TerminalWitnessRecord {
  return {
    sessionId: Number(r.session_id),
    activation: Number(r.activation),
    credentialId: Number(r.credential_id),
    userId: Number(r.user_id),
    mintedAt: r.minted_at,
    closedAt: r.closed_at,
    closedTurns: r.closed_turns === null ? null : Number(r.closed_turns),
    heardAt: r.heard_at ?? r.minted_at,
  };
}

export async function findWitness(db: Executor, sessionId: number, activation: number): Promise<TerminalWitnessRecord | null> {
  const row = await db.selectFrom('terminal_witnesses').selectAll().where('session_id', '=', sessionId).where('activation', '=', activation).executeTakeFirst();
  return row ? toWitness(row) : null;
}

/** The activation's witness is now this credential (a second mint replaces the first). */
export async function upsertWitness(
  db: Executor,
  w: { sessionId: number; activation: number; credentialId: number; userId: number; now: string },
): Promise<void> {
  await db
    .insertInto('terminal_witnesses')
    .values({ session_id: w.sessionId, activation: w.activation, credential_id: w.credentialId, user_id: w.userId, minted_at: w.now })
    .onConflict((oc) =>
      oc.columns(['session_id', 'activation']).doUpdateSet({ credential_id: w.credentialId, user_id: w.userId, minted_at: w.now, heard_at: null }),
    )
    .execute();
}

/** The runner's heartbeat: its witness is alive (a closed run takes none). */
export async function heardFromWitness(db: Executor, sessionId: number, activation: number, now: string): Promise<void> {
  await db
    .updateTable('terminal_witnesses')
    .set({ heard_at: now })
    .where('session_id', '=', sessionId)
    .where('activation', '=', activation)
    .where('closed_at', 'is', null)
    .execute();
}

/** Compare-and-set: the closing report lands once. */
export async function closeWitness(db: Executor, sessionId: number, activation: number, turns: number, now: string): Promise<boolean> {
  const r = await db
    .updateTable('terminal_witnesses')
    .set({ closed_at: now, closed_turns: turns })
    .where('session_id', '=', sessionId)
    .where('activation', '=', activation)
    .where('closed_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Revokes every live witness credential of the session (or of one activation); returns their ids. */
export async function revokeWitnessCredentials(db: Executor, sessionId: number, now: string, activation?: number): Promise<number[]> {
  let q = db.updateTable('tokens').set({ revoked_at: now }).where('kind', '=', 'witness').where('session_id', '=', sessionId).where('revoked_at', 'is', null);
  if (activation !== undefined) q = q.where('activation', '=', activation);
  const rows = await q.returning('id').execute();
  return rows.map((r) => Number(r.id));
}

type TurnRow = {
  id: number;
  session_id: number;
  activation: number;
  digest: string;
  length: number;
  reliable: number;
  pasted: number;
  reported_at: string;
  human_message_id: number | null;
};

function toTurn(r: TurnRow): TerminalTurnRecord {
  return {
    id: Number(r.id),
    sessionId: Number(r.session_id),
    activation: Number(r.activation),
    digest: r.digest,
    length: Number(r.length),
    reliable: Number(r.reliable) === 1,
    pasted: Number(r.pasted) === 1,
    reportedAt: r.reported_at,
    humanMessageId: r.human_message_id === null ? null : Number(r.human_message_id),
  };
}

export async function insertTurn(
  db: Executor,
  t: { sessionId: number; activation: number; digest: string; length: number; reliable: boolean; pasted: boolean; now: string },
): Promise<number> {
  const row = await db
    .insertInto('terminal_turns')
    .values({
      session_id: t.sessionId,
      activation: t.activation,
      digest: t.digest,
      length: t.length,
      reliable: t.reliable ? 1 : 0,
      pasted: t.pasted ? 1 : 0,
      reported_at: t.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function findTurn(db: Executor, id: number): Promise<TerminalTurnRecord | null> {
  const row = await db
    .selectFrom('terminal_turns')
    .select(['id', 'session_id', 'activation', 'digest', 'length', 'reliable', 'pasted', 'reported_at', 'human_message_id'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toTurn(row) : null;
}

/** Compare-and-set: of two witnessed prompts racing for one turn, exactly one consumes it. */
export async function consumeTurn(db: Executor, id: number, humanMessageId: number, now: string): Promise<boolean> {
  const r = await db
    .updateTable('terminal_turns')
    .set({ human_message_id: humanMessageId, consumed_at: now })
    .where('id', '=', id)
    .where('human_message_id', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function insertPromptReport(
  db: Executor,
  r: { sessionId: number; activation: number; digest: string; length: number; now: string },
): Promise<number> {
  const row = await db
    .insertInto('prompt_reports')
    .values({ session_id: r.sessionId, activation: r.activation, digest: r.digest, length: r.length, reported_at: r.now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** How many prompt reports the activation has (the first one is the `--prompt`'s to match). */
export async function countPromptReports(db: Executor, sessionId: number, activation: number): Promise<number> {
  const row = await db
    .selectFrom('prompt_reports')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('session_id', '=', sessionId)
    .where('activation', '=', activation)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Compare-and-set: a report is matched to one thing, once. */
export async function matchPromptReport(
  db: Executor,
  id: number,
  match: { kind: PromptMatchKind; inboxItemId?: number; turnId?: number; now: string },
): Promise<boolean> {
  const r = await db
    .updateTable('prompt_reports')
    .set({ matched_kind: match.kind, matched_inbox_item_id: match.inboxItemId ?? null, matched_turn_id: match.turnId ?? null, matched_at: match.now })
    .where('id', '=', id)
    .where('matched_kind', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The activation's unmatched reports with this digest and length, oldest first. */
export async function unmatchedReportsEqualTo(db: Executor, sessionId: number, activation: number, digest: string, length: number): Promise<number[]> {
  const rows = await db
    .selectFrom('prompt_reports')
    .select('id')
    .where('session_id', '=', sessionId)
    .where('activation', '=', activation)
    .where('digest', '=', digest)
    .where('length', '=', length)
    .where('matched_kind', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => Number(r.id));
}

export async function insertRunPrompt(
  db: Executor,
  p: { sessionId: number; activation: number; humanMessageId: number; digest: string; length: number; now: string },
): Promise<boolean> {
  const r = await db
    .insertInto('run_prompts')
    .values({ session_id: p.sessionId, activation: p.activation, human_message_id: p.humanMessageId, digest: p.digest, length: p.length, created_at: p.now })
    .onConflict((oc) => oc.columns(['session_id', 'activation']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function findRunPrompt(
  db: Executor,
  sessionId: number,
  activation: number,
): Promise<{ digest: string; length: number; humanMessageId: number } | null> {
  const row = await db
    .selectFrom('run_prompts')
    .select(['digest', 'length', 'human_message_id'])
    .where('session_id', '=', sessionId)
    .where('activation', '=', activation)
    .executeTakeFirst();
  return row ? { digest: row.digest, length: Number(row.length), humanMessageId: Number(row.human_message_id) } : null;
}

/** Everything the coverage rule needs about these runs, by `${session}:${activation}`. */
export interface TerminalRunRows {
  witnesses: Map<string, TerminalWitnessRecord>;
  turns: Map<string, { reportedAt: string; consumed: boolean }[]>;
  reports: Map<string, { reportedAt: string; matched: boolean }[]>;
}

export const runKey = (sessionId: number, activation: number) => `${sessionId}:${activation}`;

export async function terminalRunRows(db: Executor, sessionIds: readonly number[]): Promise<TerminalRunRows> {
  const out: TerminalRunRows = { witnesses: new Map(), turns: new Map(), reports: new Map() };
  if (sessionIds.length === 0) return out;
  const ids = [...new Set(sessionIds)];
  for (const r of await db.selectFrom('terminal_witnesses').selectAll().where('session_id', 'in', ids).execute()) {
    const w = toWitness(r);
    out.witnesses.set(runKey(w.sessionId, w.activation), w);
  }
  const turns = await db
    .selectFrom('terminal_turns')
    .select(['session_id', 'activation', 'reported_at', 'human_message_id'])
    .where('session_id', 'in', ids)
    .orderBy('id')
    .execute();
  for (const t of turns) {
    const key = runKey(Number(t.session_id), Number(t.activation));
    const list = out.turns.get(key) ?? [];
    list.push({ reportedAt: t.reported_at, consumed: t.human_message_id !== null });
    out.turns.set(key, list);
  }
  const reports = await db
    .selectFrom('prompt_reports')
    .select(['session_id', 'activation', 'reported_at', 'matched_kind'])
    .where('session_id', 'in', ids)
    .orderBy('id')
    .execute();
  for (const r of reports) {
    const key = runKey(Number(r.session_id), Number(r.activation));
    const list = out.reports.get(key) ?? [];
    list.push({ reportedAt: r.reported_at, matched: r.matched_kind !== null });
    out.reports.set(key, list);
  }
  return out;
}
