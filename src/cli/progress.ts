/**
 * docs/api.md: long operations (export, verify, backfill, bench) show a progress bar on a TTY and
 * stay quiet in pipes. The bar goes to stderr, redrawn at most ten times a second.
 */
export class ProgressBar {
  private lastDraw = 0;
  private drawn = false;
  readonly enabled: boolean;

  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    enabled?: boolean,
  ) {
    this.enabled = enabled ?? stream.isTTY === true;
  }

  /** `total` 0 means unknown: a counter instead of a bar. */
  update(done: number, total: number, force = false): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (!force && this.drawn && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    this.drawn = true;
    const width = 30;
    let line: string;
    if (total > 0) {
      const fraction = Math.min(done / total, 1);
      const filled = Math.round(fraction * width);
      line = `${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(fraction * 100)}% ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`;
    } else {
      line = `${this.label} ${done.toLocaleString('en-US')}`;
    }
    this.stream.write(`\r${line}\x1b[K`);
  }

  finish(done: number, total: number): void {
    if (!this.enabled) return;
    this.update(done, total, true);
    this.stream.write('\n');
  }
}
