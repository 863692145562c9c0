/**
 * The agent's output on its way to the person's terminal, with the two things that would let the
 * agent make that terminal type for it removed (docs/human-messages.md, "the agent terminal"):
 * ENQ (0x05, which makes some terminals send their answerback string as input) and OSC 52 (set
 * the clipboard, which a later paste would type). Every other byte passes unchanged and in order.
 *
 * Streaming: an escape sequence split across chunks is held until it is known to be, or not to
 * be, OSC 52; an OSC 52 body is dropped as it arrives, however long.
 */

const ESC = 0x1b;
const BEL = 0x07;
const ENQ = 0x05;
/** ESC ] 5 2 ; */
const OSC52 = [ESC, 0x5d, 0x35, 0x32, 0x3b];

export class OutputFilter {
  /** bytes of a possible OSC 52 opener held back, not yet passed */
  private held: number[] = [];
  /** inside an OSC 52 body: dropping until BEL or ESC \ */
  private dropping = false;
  private dropSawEsc = false;

  /** Filters one chunk; what it returns goes to the terminal. */
  push(chunk: Uint8Array): Buffer {
    // the common case: nothing to filter and nothing held
    if (!this.dropping && this.held.length === 0 && chunk.indexOf(ENQ) < 0 && chunk.indexOf(ESC) < 0) return Buffer.from(chunk);
    const out: number[] = [];
    for (const b of chunk) this.byte(b, out);
    return Buffer.from(out);
  }

  /** The stream ended: an incomplete opener that never became OSC 52 is passed as it was. */
  flush(): Buffer {
    const rest = this.dropping ? [] : this.held;
    this.held = [];
    return Buffer.from(rest);
  }

  private byte(b: number, out: number[]): void {
    // ENQ goes first, wherever it is: "ESC ENQ ] 5 2 ;" must not become OSC 52 once ENQ is gone
    if (b === ENQ) return;
    if (this.dropping) {
      if (b === BEL || (this.dropSawEsc && b === 0x5c)) {
        this.dropping = false;
        this.dropSawEsc = false;
      } else if (this.dropSawEsc && b !== ESC) {
        // ESC followed by anything but "\": the OSC was cut off by a new sequence; it starts here
        this.dropping = false;
        this.dropSawEsc = false;
        this.held = [ESC];
        this.byte(b, out);
      } else {
        this.dropSawEsc = b === ESC;
      }
      return;
    }
    if (this.held.length > 0) {
      if (b === OSC52[this.held.length]) {
        this.held.push(b);
        if (this.held.length === OSC52.length) {
          this.held = [];
          this.dropping = true;
        }
        return;
      }
      // not OSC 52: pass what was held, then look at this byte afresh
      for (const h of this.held) out.push(h);
      this.held = [];
    }
    if (b === ESC) {
      this.held = [ESC];
      return;
    }
    out.push(b);
  }
}
