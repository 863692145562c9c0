import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness.js';
import { SCENARIOS } from './scenarios.js';

/**
 * SQLite across processes (docs/design/quality.md): each racer is its own process on the same database file.
 * Every racer reads the session first; only when all have read does the test release them
 * together (the barrier, over pipes). Each write transaction begins IMMEDIATE, so the losers
 * wait for the winner's commit, then re-read and find nothing left to do — one event.
 */
const RACER = resolve('test/concurrency/racer.mjs');
const PROCESSES = Math.max(...SCENARIOS.map((s) => s.racers));

class Racer {
  private readonly replies: ((msg: any) => void)[] = [];
  private readonly backlog: any[] = [];
  constructor(readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const msg = JSON.parse(line);
      const waiter = this.replies.shift();
      if (waiter) waiter(msg);
      else this.backlog.push(msg);
    });
  }
  next(): Promise<any> {
    const ready = this.backlog.shift();
    return ready ? Promise.resolve(ready) : new Promise((ok) => this.replies.push(ok));
  }
  send(msg: unknown): void {
    this.child.stdin!.write(JSON.stringify(msg) + '\n');
  }
}

describe('concurrency at a barrier [sqlite, separate processes]', () => {
  let h: Harness;
  let racers: Racer[] = [];
  beforeAll(async () => {
    h = await openHarness('sqlite');
    racers = Array.from(
      { length: PROCESSES },
      () => new Racer(spawn(process.execPath, [RACER, h.database.sqliteFile], { stdio: ['pipe', 'pipe', 'inherit'] })),
    );
    for (const r of racers) expect((await r.next()).event).toBe('started');
    expect(new Set(racers.map((r) => r.child.pid)).size).toBe(PROCESSES);
  });
  afterAll(async () => {
    await Promise.all(racers.map((r) => new Promise((ok) => (r.child.once('close', ok), r.send({ cmd: 'exit' })))));
    await h?.close();
  });

  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: ${scenario.racers} processes read, then all write — exactly one takes effect`, async () => {
      const { id, token } = await scenario.setup(h);
      const tag = `${scenario.name.replace(/\W+/g, '-')}-${Date.now()}`;
      const team = racers.slice(0, scenario.racers);
      const readPath = id === null ? '/api/v1/sessions?limit=1' : `/api/v1/sessions/${id}`;
      for (const r of team) r.send({ cmd: 'read', token, path: readPath });
      const reads = await Promise.all(team.map((r) => r.next()));
      expect(reads.map((m) => [m.event, m.status])).toEqual(team.map(() => ['ready', 200]));
      // the barrier: every racer has read; release them all at once
      const request = scenario.request(id, tag);
      for (const r of team) r.send({ cmd: 'go', token, request });
      const done = await Promise.all(team.map((r) => r.next()));
      for (const m of done) expect(m.event, m.message).toBe('done');
      await scenario.check(
        h,
        id,
        done.map((m) => ({ status: m.status, body: m.body })),
        tag,
      );
    });
  }
});
