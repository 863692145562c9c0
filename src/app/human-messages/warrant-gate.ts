import type { CoverageGap } from '../../core/coverage.js';
import { decideWarrant, type WarrantAnswer } from '../../core/human-record.js';
import { liveHumanMessageIds, witnessIsolationsOf } from '../../store/human-messages-repo.js';
import type { WitnessIsolation } from '../../core/terminal-witness.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { ownerFilterOf, resolveReadable, walkSession } from '../lineage/hierarchy.js';
import { humanRecordOf } from './record.js';

const MAX_EVIDENCE = 100;

/** docs/human-messages.md: did a human ask for this — with evidence, and the gaps beside it. */
export interface WarrantVerdict {
  sessionId: number;
  answer: WarrantAnswer;
  /** ids of the messages (not withdrawn) the answer rests on, newest first */
  evidence: number[];
  /** the evidence witnessed at an agent terminal, with how far the agent was kept from the witness */
  witnessedEvidence: { id: number; witnessIsolation: WitnessIsolation }[];
  gaps: CoverageGap[];
  truncated: boolean;
  counts: { here: number; elsewhere: number };
}

export async function checkWarrant(ctx: AppContext, caller: Caller, ref: string | number): Promise<WarrantVerdict> {
  const { session, visibility } = await resolveReadable(ctx, caller, ref);
  const { hierarchy } = await walkSession(ctx, session, ownerFilterOf(visibility));
  const record = await humanRecordOf(ctx, hierarchy, { limit: 1 });
  const answer = decideWarrant(record.liveCounts, record.gaps.length, record.truncated);
  const scope = answer === 'here' ? [session.id] : answer === 'elsewhere' ? hierarchy.nodes.map((n) => n.id).filter((id) => id !== session.id) : [];
  const evidence = await liveHumanMessageIds(ctx.store.kysely, scope, MAX_EVIDENCE);
  const isolations = await witnessIsolationsOf(ctx.store.kysely, evidence);
  return {
    sessionId: session.id,
    answer,
    evidence,
    witnessedEvidence: evidence.filter((id) => isolations.has(id)).map((id) => ({ id, witnessIsolation: isolations.get(id)! })),
    gaps: record.gaps,
    truncated: record.truncated,
    counts: record.counts,
  };
}
