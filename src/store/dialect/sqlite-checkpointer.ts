import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints on a thread of their own, so that no COMMIT on the event loop pays one.
 *
 * better-sqlite3 is synchronous. With SQLite's automatic checkpoint, the COMMIT that takes the
 * WAL past 1,000 pages copies them into the database file and waits for two fsyncs, with the
 * event loop stopped: about one commit in twenty-five under the message bench's load, 10–20 ms
 * each, over half of all the time spent in COMMIT. Here a worker thread with a connection of its
 * own runs PASSIVE checkpoints (which never take the write lock, so they never make the writer
 * wait) on a short interval, and the writer's own automatic checkpoint stays only as a safety
 * net, far out (`WRITER_SAFETY_PAGES`). The writer still restarts the WAL from the start
 * whenever it begins after a checkpoint that caught up; under a steady load that rarely happens,
 * and then the safety net bounds the file.
 *
 * The worker is started after the store's first `START_AFTER_COMMITS` commits, so that a store
 * that writes little (a CLI command, most tests) never pays a thread; when it fails or exits on
 * its own, the writer's automatic checkpoint returns to SQLite's default.
 */

/** SQLite's default `wal_autocheckpoint`, which the writer keeps while no worker runs. */
export const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1_000;
/** The writer's own automatic checkpoint while the worker runs: a bound on the WAL (about 16 MiB of 4 KiB pages), not the rule. */
export const WRITER_SAFETY_PAGES = 4_000;
/** Commits before the worker starts. */
const START_AFTER_COMMITS = 500;
const CHECKPOINT_INTERVAL_MS = 50;
const STOP_GRACE_MS = 2_000;

// Plain CommonJS evaluated in the worker, so that it runs the same under tsx, vitest and the
// built package: it loads better-sqlite3 from the path the store itself resolved.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverModule);
const db = new Database(workerData.filename, { fileMustExist: true });
let timer = null;
const tick = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    // another process's checkpoint holds the lock: next time
    if (!(error && error.code === 'SQLITE_BUSY')) {
      db.close();
      parentPort.postMessage({ failed: String((error && error.message) || error) });
      parentPort.close();
      return;
    }
  }
  timer = setTimeout(tick, workerData.intervalMs);
};
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
parentPort.postMessage({ ready: true });
timer = setTimeout(tick, workerData.intervalMs);
`;

const driverModule = createRequire(import.meta.url).resolve('better-sqlite3');

export interface WalCheckpointer {
  /** Called after every COMMIT; starts the worker once enough have passed. */
  committed(): void;
  /** Stops the worker (its connection closed) before the store's own connections close. */
  stop(): Promise<void>;
}

/**
 * `setWriterAutocheckpoint(pages)`: sets the writer connection's `wal_autocheckpoint` — the
 * safety net once the worker is ready, SQLite's default again when it is gone.
 */
export function walCheckpointer(
  filename: string,
  setWriterAutocheckpoint: (pages: number) => void,
  { startAfterCommits = START_AFTER_COMMITS, intervalMs = CHECKPOINT_INTERVAL_MS } = {},
): WalCheckpointer {
  let commits = 0;
  // once: a worker that failed is not started again (the writer checkpoints as SQLite does)
  let started = false;
  let worker: Worker | null = null;
  let stopping = false;
  const gone = () => {
    worker = null;
    if (!stopping) setWriterAutocheckpoint(SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES);
  };
  const start = () => {
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { filename, driverModule, intervalMs } });
    worker = w;
    // a thread that only checkpoints must not keep the process alive
    w.unref();
    w.on('message', (message: { ready?: boolean; failed?: string }) => {
      if (message.ready && worker === w && !stopping) setWriterAutocheckpoint(WRITER_SAFETY_PAGES);
      if (message.failed) gone();
    });
    w.on('error', gone);
    w.on('exit', () => {
      if (worker === w) gone();
    });
  };
  return {
    committed() {
      if (started || stopping || ++commits < startAfterCommits) return;
      started = true;
      start();
    },
    async stop() {
      stopping = true;
      const w = worker;
      if (!w) return;
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      // an unreferenced thread's exit would not keep the process waiting for it
      w.ref();
      w.postMessage('stop');
      // a checkpoint is safe to cut short (SQLite resumes it next time): a thread that does not
      // stop within STOP_GRACE_MS is terminated rather than waited for
      const grace = setTimeout(() => void w.terminate(), STOP_GRACE_MS);
      await exited;
      clearTimeout(grace);
    },
  };
}
