import { parseWarrantMessageFrame, type WarrantMessageFrame } from './inbox-frames.js';

/**
 * docs/messages.md: recognizing which session a Claude Code transcript
 * belongs to, from evidence inside it only — the `warrant-message` frames Warrant delivered to
 * that session as user turns. Never from folder names, working directories or time proximity.
 * Pure; the CLI reads the files.
 */

/**
 * The texts of a transcript record that count: a user-role, non-sidechain record's string
 * content or its text blocks. Tool results (which can quote a frame the agent fetched) and
 * every other record kind yield nothing.
 * @example userTexts({type:'user', message:{role:'user', content:'hi'}}) // ['hi']
 */
export function userTexts(record: unknown): string[] {
  if (typeof record !== 'object' || record === null) return [];
  const r = record as Record<string, unknown>;
  if (r.isSidechain === true) return [];
  if (r.type !== undefined && r.type !== 'user') return [];
  const message = r.message as Record<string, unknown> | undefined;
  if (typeof message !== 'object' || message === null || message.role !== 'user') return [];
  const content = message.content;
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  const out: string[] = [];
  for (const block of content) {
    if (
      typeof block === 'object' &&
      block !== null &&
      (block as Record<string, unknown>).type === 'text' &&
      typeof (block as Record<string, unknown>).text === 'string'
    ) {
      out.push((block as { text: string }).text);
    }
  }
  return out;
}

const FRAME_START = /\{\s*"kind"\s*:\s*"warrant-message"/g;

/** The balanced JSON object starting at `start` (string-aware), or null when it never closes. */
function balancedObject(text: string, start: number): string | null {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

/**
 * Every `warrant-message` frame in a text: the text may be exactly one frame (what a runtime
 * hands its model) or carry frames within other words. Something that starts like a frame
 * but is not a well-formed one counts as malformed.
 */
export function framesInText(text: string): { frames: WarrantMessageFrame[]; malformed: number } {
  const frames: WarrantMessageFrame[] = [];
  let malformed = 0;
  FRAME_START.lastIndex = 0;
  for (let m = FRAME_START.exec(text); m; m = FRAME_START.exec(text)) {
    const body = balancedObject(text, m.index);
    const frame = body === null ? null : parseWarrantMessageFrame(body);
    if (frame) {
      frames.push(frame);
      FRAME_START.lastIndex = m.index + body!.length;
    } else malformed++;
  }
  return { frames, malformed };
}

/** One transcript read line by line: the sessions its frames name, and what could not be read. */
export class TranscriptScan {
  readonly targets = new Set<number>();
  frames = 0;
  malformedLines = 0;
  malformedFrames = 0;

  feed(line: string): void {
    if (line.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      this.malformedLines++;
      return;
    }
    for (const text of userTexts(record)) {
      const found = framesInText(text);
      this.malformedFrames += found.malformed;
      for (const f of found.frames) {
        this.frames++;
        this.targets.add(f.to.session_id);
      }
    }
  }

  /** `no_frame`, `ambiguous`, or the one session the transcript's frames name. */
  verdict(): { kind: 'no_frame' } | { kind: 'ambiguous'; sessionIds: number[] } | { kind: 'single'; sessionId: number } {
    if (this.targets.size === 0) return { kind: 'no_frame' };
    if (this.targets.size > 1) return { kind: 'ambiguous', sessionIds: [...this.targets].sort((a, b) => a - b) };
    return { kind: 'single', sessionId: [...this.targets][0]! };
  }
}

/** The backfill's per-transcript outcomes and its counters (docs/messages.md), in report order. */
export const BACKFILL_OUTCOMES = ['attributed', 'already_estimated', 'skipped_observed', 'ambiguous', 'no_frame', 'unreadable'] as const;
export type BackfillOutcome = (typeof BACKFILL_OUTCOMES)[number];
