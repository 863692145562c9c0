/**
 * Racers that arrive wait until all `parties` have arrived, then go on together: with the
 * use cases' barrier seam inside their transactions, the transactions really overlap.
 */
export class Barrier {
  arrived = 0;
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  constructor(private readonly parties: number) {}
  async arrive(): Promise<void> {
    if (++this.arrived === this.parties) this.open();
    let timer: NodeJS.Timeout | undefined;
    // a hang guard, not a performance threshold: a deadlocked race fails instead of hanging
    const guard = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`barrier: ${this.arrived}/${this.parties} arrived`)), 30_000)));
    try {
      await Promise.race([this.gate, guard]);
    } finally {
      clearTimeout(timer);
    }
  }
}
