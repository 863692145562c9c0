import type { WarrantVerdict } from '../app/human-messages/warrant-gate.js';
import { gapSentence, serializeGap } from './coverage-gaps.js';
import { witnessIsolationText } from './human-messages-markdown.js';

const MEANING: Record<WarrantVerdict['answer'], string> = {
  here: 'a named human asked for this, in this session',
  elsewhere: 'a named human spoke elsewhere in this hierarchy (context about the original intent, not an instruction to this session); nobody asked here',
  none: 'no named human spoke anywhere in this hierarchy, and every channel could have recorded it',
  'cannot-say': 'no human message is on record, but capture could not have seen everything (see the gaps), so this is not an answer',
};

/**
 * What the answer means for this verdict. Withdrawn messages are never evidence, but a
 * withdrawal is not silence: when only withdrawn messages are on record, the sentence says a
 * human asked and withdrew it — never that nobody spoke.
 */
function warrantMeaning(v: Pick<WarrantVerdict, 'answer' | 'counts'>): string {
  const withdrawnHere = v.answer !== 'here' && v.counts.here > 0;
  const withdrawnElsewhere = (v.answer === 'none' || v.answer === 'cannot-say') && v.counts.elsewhere > 0;
  if (v.answer === 'elsewhere' && withdrawnHere) return `${MEANING.elsewhere}, and the request made here was withdrawn`;
  if (!withdrawnHere && !withdrawnElsewhere) return MEANING[v.answer];
  const who = withdrawnHere ? 'a named human asked for this and withdrew it' : 'a named human spoke elsewhere in this hierarchy and withdrew it';
  return v.answer === 'none'
    ? `${who}; nothing else is on record, and every channel could have recorded it`
    : `${who}; nothing else is on record, but capture could not have seen everything (see the gaps), so this is not an answer`;
}

export function serializeWarrant(v: WarrantVerdict) {
  return {
    session_id: v.sessionId,
    answer: v.answer,
    evidence: v.evidence,
    // present when some evidence was witnessed at an agent terminal (docs/design/terminal-channel.md)
    ...(v.witnessedEvidence.length > 0
      ? { witnessed_evidence: v.witnessedEvidence.map((e) => ({ human_message_id: e.id, witness_isolation: e.witnessIsolation })) }
      : {}),
    gaps: v.gaps.map(serializeGap),
    truncated: v.truncated,
    counts: { here: v.counts.here, elsewhere: v.counts.elsewhere },
  };
}

const CUT = 'The hierarchy was cut by its bounds: not every session was searched.';

export function renderWarrant(v: WarrantVerdict): string {
  const lines = [`warrant for #${v.sessionId}: ${v.answer} — ${warrantMeaning(v)}.`];
  if (v.evidence.length > 0) {
    const isolation = new Map(v.witnessedEvidence.map((e) => [e.id, e.witnessIsolation]));
    lines.push(
      `evidence: ${v.evidence.map((id) => (isolation.has(id) ? `human message ${id} (witnessed at the agent terminal; ${witnessIsolationText(isolation.get(id)!)})` : `human message ${id}`)).join(', ')}`,
    );
  }
  if (v.truncated) lines.push(CUT);
  for (const g of v.gaps) lines.push(`- ${gapSentence(g)}`);
  return lines.join('\n');
}

/** The rendering's sentences, for a structured result: what the answer means, the cut, the gaps. */
export function warrantNotes(v: WarrantVerdict): string[] {
  return [`${v.answer}: ${warrantMeaning(v)}.`, ...(v.truncated ? [CUT] : []), ...v.gaps.map(gapSentence)];
}
