import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizePrompt } from '../../src/core/prompt-match.js';
import { isReportableTurn, TerminalLine, TurnCandidate, TURN_CANDIDATE_MS, witnessedBy, type TerminalTurn } from '../../src/runner/terminal-line.js';

const turnsOf = (chunks: (string | Uint8Array)[], echo = true): TerminalTurn[] => {
  const line = new TerminalLine();
  return chunks.flatMap((c) => line.feed(typeof c === 'string' ? Buffer.from(c, 'utf8') : c, echo));
};
const only = (...chunks: string[]) => {
  const turns = turnsOf(chunks);
  expect(turns).toHaveLength(1);
  return turns[0]!;
};

describe('TerminalLine: the turns a person submitted, as far as their keys say', () => {
  it('printable characters append and Enter (CR) ends the turn; several turns in one chunk', () => {
    expect(only('fix the flaky test\r')).toEqual({ text: 'fix the flaky test', reliable: true, pasted: false, echoOff: false });
    expect(turnsOf(['one\rtwo\r']).map((t) => t.text)).toEqual(['one', 'two']);
    // nothing is a turn until Enter
    expect(turnsOf(['typed but not sent'])).toEqual([]);
  });

  it('Backspace (DEL and BS) removes the last code point, multi-byte ones included; on an empty line it does nothing', () => {
    expect(only('helo\x7flo\r').text).toBe('hello');
    expect(only('é😀x\x7f\x7f\r').text).toBe('é');
    expect(only('\x7f\x7fok\x08k\r')).toMatchObject({ text: 'ok', reliable: true });
  });

  it('UTF-8 split across chunks is one character', () => {
    const bytes = Buffer.from('né😀\r', 'utf8');
    const chunks = [...bytes].map((b) => Uint8Array.of(b));
    expect(turnsOf(chunks)).toEqual([{ text: 'né😀', reliable: true, pasted: false, echoOff: false }]);
  });

  it('a bracketed paste appends its text (line breaks included) and marks the turn pasted; the markers may be split across chunks', () => {
    expect(only('see: \x1b[200~line one\rline two\x1b[201~ thanks\r')).toEqual({
      text: 'see: line one\nline two thanks',
      reliable: true,
      pasted: true,
      echoOff: false,
    });
    expect(turnsOf(['\x1b', '[20', '0~abc', '\x1b[2', '01~', '\r'])).toEqual([{ text: 'abc', reliable: true, pasted: true, echoOff: false }]);
  });

  it('cursor keys, history recall, Tab, Alt-keys, Escape, LF and Ctrl-keys make the turn unreliable — until the next Enter', () => {
    for (const key of ['\x1b[D', '\x1b[A', '\x1bOA', '\t', '\x1bb', '\x1b\x1b', '\n', '\x01', '\x03', '\x15', '\x1b[1;5C', '\x1b]52;c;aGk=\x07']) {
      const turn = only(`ab${key}c\r`);
      expect([key, turn.reliable]).toEqual([key, false]);
    }
    const [edited, next] = turnsOf(['abc\x1b[Dx\r', 'clean\r']);
    expect(edited!.reliable).toBe(false);
    expect(next).toEqual({ text: 'clean', reliable: true, pasted: false, echoOff: false });
  });

  it('a turn with any key typed while echo was off is echo-off, and is not reportable', () => {
    const line = new TerminalLine();
    expect(line.feed(Buffer.from('hunt'), false)).toEqual([]);
    const [secret] = line.feed(Buffer.from('er2\r'), true);
    expect(secret).toMatchObject({ text: 'hunter2', echoOff: true });
    expect(isReportableTurn(secret!)).toBe(false);
    const [after] = line.feed(Buffer.from('visible\r'), true);
    expect(isReportableTurn(after!)).toBe(true);
  });

  it('an empty or whitespace-only Enter is a turn with no text, never reportable', () => {
    expect(turnsOf(['\r', '   \r']).map(isReportableTurn)).toEqual([false, false]);
  });

  it('the runner typing into the agent taints the turn in progress', () => {
    const line = new TerminalLine();
    line.feed(Buffer.from('half'), true);
    line.taint();
    expect(line.feed(Buffer.from(' a turn\r'), true)[0]!.reliable).toBe(false);
  });
});

describe('TurnCandidate and witnessedBy: only the latest turn, until the next hook event or 5 s', () => {
  const reliable = (text: string): TerminalTurn => ({ text, reliable: true, pasted: false, echoOff: false });

  it('the prompt event takes the latest turn once; an exact report matches it, trailing whitespace and CRLF aside', () => {
    const c = new TurnCandidate<number>();
    c.ended(1, reliable('first'), 1000);
    c.ended(2, reliable('check the\ndeploy'), 2000);
    const taken = c.take(2500);
    expect(taken?.id).toBe(2);
    expect(witnessedBy(taken!.turn, 'check the\r\ndeploy \n')).toBe(true);
    expect(witnessedBy(taken!.turn, 'check the deploy')).toBe(false);
    // consumed: the same words reported again have no candidate
    expect(c.take(2600)).toBeNull();
  });

  it('expires 5 s after the turn ended (time injected), and at any other hook event', () => {
    const c = new TurnCandidate<number>();
    c.ended(1, reliable('late'), 10_000);
    expect(c.take(10_000 + TURN_CANDIDATE_MS + 1)).toBeNull();
    c.ended(2, reliable('on time'), 20_000);
    expect(c.take(20_000 + TURN_CANDIDATE_MS)?.id).toBe(2);
    // a Stop (any non-prompt event) takes and drops it: the caller throws it away
    c.ended(3, reliable('dialog answer'), 30_000);
    c.take(30_001);
    expect(c.take(30_002)).toBeNull();
  });

  it('unreliable, echo-off and empty turns never match, even when the report repeats their text', () => {
    expect(witnessedBy({ text: 'edited', reliable: false, pasted: false, echoOff: false }, 'edited')).toBe(false);
    expect(witnessedBy({ text: 'hunter2', reliable: true, pasted: false, echoOff: true }, 'hunter2')).toBe(false);
    expect(witnessedBy({ text: '', reliable: true, pasted: false, echoOff: false }, '')).toBe(false);
    expect(witnessedBy(null, 'anything')).toBe(false);
  });
});

/** The keys a person (or an attacker's terminal) might send. */
const key = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('a', 'b', ' ', 'é', '😀', 'Z', '1') },
  { weight: 2, arbitrary: fc.constantFrom('\x7f', '\x08') },
  { weight: 2, arbitrary: fc.constant('\r') },
  { weight: 1, arbitrary: fc.constantFrom('\x1b[A', '\x1b[D', '\x1b[C', '\t', '\x03', '\x15', '\n', '\x1b', '\x1bOP', '\x1b]52;c;eA==\x07') },
  { weight: 1, arbitrary: fc.constantFrom('\x1b[200~', '\x1b[201~', '\x1b[200~pasted\rtext\x1b[201~') },
);

/**
 * The reference: what a plain line editor that only appends, deletes a code point on Backspace
 * and submits on Enter would have received — defined only for turns without any other key.
 */
function referenceTurns(keys: string[]): { text: string; plain: boolean }[] {
  const out: { text: string; plain: boolean }[] = [];
  let chars: string[] = [];
  let plain = true;
  let pasting = false;
  const stream = keys.join('');
  for (let i = 0; i < stream.length;) {
    if (stream.startsWith('\x1b[200~', i)) {
      if (pasting) plain = false;
      pasting = true;
      i += 6;
      continue;
    }
    if (stream.startsWith('\x1b[201~', i)) {
      if (!pasting) plain = false;
      pasting = false;
      i += 6;
      continue;
    }
    const ch = String.fromCodePoint(stream.codePointAt(i)!);
    i += ch.length;
    if (pasting) {
      if (ch === '\x1b') plain = false;
      else chars.push(ch === '\r' ? '\n' : ch);
      continue;
    }
    if (ch === '\r') {
      out.push({ text: normalizePrompt(chars.join('')), plain });
      chars = [];
      plain = true;
    } else if (ch === '\x7f' || ch === '\x08') chars.pop();
    else if (ch.codePointAt(0)! < 0x20) plain = false;
    else chars.push(ch);
  }
  return out;
}

describe('property: random keystroke streams and random prompt reports never attribute a report that differs from the reconstructed turn', () => {
  it('whatever the keys, chunking and reports, a witnessed turn is exactly the text a plain editor received, and the report equals it', () => {
    fc.assert(
      fc.property(
        fc.array(key, { maxLength: 40 }),
        fc.array(fc.nat({ max: 7 }), { maxLength: 10 }),
        fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a', 'ab', 'é', 'pasted\ntext', 'aa')), { maxLength: 8 }),
        fc.array(fc.nat({ max: 2 * TURN_CANDIDATE_MS }), { maxLength: 20 }),
        (keys, cuts, reports, gaps) => {
          // split the byte stream at random places (escape sequences and UTF-8 across chunks)
          const bytes = Buffer.from(keys.join(''), 'utf8');
          const chunks: Uint8Array[] = [];
          let at = 0;
          for (const cut of cuts) {
            const end = Math.min(bytes.length, at + cut);
            chunks.push(bytes.subarray(at, end));
            at = end;
          }
          chunks.push(bytes.subarray(at));
          const turns = turnsOf(chunks);
          const reference = referenceTurns(keys);
          expect(turns.map((t) => t.text)).toHaveLength(reference.length);
          // a reliable turn is exactly what the plain editor received
          turns.forEach((t, i) => {
            if (t.reliable) expect(reference[i]).toEqual({ text: t.text, plain: true });
          });
          // random interleaving of turns and prompt reports, with random clocks
          const candidate = new TurnCandidate<number>();
          let now = 0;
          let r = 0;
          turns.forEach((t, i) => {
            now += gaps[i % Math.max(1, gaps.length)] ?? 0;
            if (isReportableTurn(t)) candidate.ended(i, t, now);
            if (r < reports.length && (gaps[i] ?? 0) % 2 === 0) {
              const report = reports[r++]!;
              const taken = candidate.take(now + (gaps[(i + 1) % Math.max(1, gaps.length)] ?? 0));
              if (taken && witnessedBy(taken.turn, report)) {
                expect(normalizePrompt(report)).toBe(taken.turn.text);
                expect(taken.turn.reliable && reference[taken.id]!.plain).toBe(true);
                expect(reference[taken.id]!.text).toBe(normalizePrompt(report));
              }
            }
          });
        },
      ),
      { numRuns: 2000 },
    );
  });
});
