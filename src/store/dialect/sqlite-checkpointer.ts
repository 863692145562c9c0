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
// posted, not thrown: an error thrown here reaches the parent cloned, and better-sqlite3's loses its message
const fail = (error) => {
  parentPort.postMessage({ failed: String((error && (error.message || error.code)) || error) });
  parentPort.close();
};
const run = () => {
  let db;
  try {
    const Database = require(workerData.driverModule);
    db = new Database(workerData.filename, { fileMustExist: true });
  } catch (error) {
    fail(error);
    return;
  }
  let timer = null;
  const tick = () => {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch (error) {
      // another process's checkpoint holds the lock: next time
      if (!(error && error.code === 'SQLITE_BUSY')) {
        db.close();
        fail(error);
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
};
run();
`;

const driverModule = createRequire(import.meta.url).resolve('better-sqlite3');

// an error of the thread's own (out of memory, say) arrives cloned, not always as an Error
const messageOf = (error: unknown): string =>
  typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string'
    ? (error as { message: string }).message
    : String(error);

/** A worker gone is not an error of any request: the operator hears of it once, as a process warning. */
function warnOfFailure(reason: string): void {
  process.emitWarning(`SQLite checkpoint thread stopped (${reason}); the writer checkpoints as SQLite does`, { code: 'WARRANT_SQLITE_CHECKPOINTS' });
}

export interface WalCheckpointer {
  /** Called after every COMMIT; starts the worker once enough have passed. */
  committed(): void;
  /** Stops the worker (its connection closed) before the store's own connections close. */
  stop(): Promise<void>;
}

/**
 * `setWriterAutocheckpoint(pages)`: sets the writer connection's `wal_autocheckpoint` — the
 * safety net once the worker is ready, SQLite's default again when it is gone. `onFailure` hears
 * why a worker went before its store stopped it (a process warning unless given).
 */
export function walCheckpointer(
  filename: string,
  setWriterAutocheckpoint: (pages: number) => void,
  { startAfterCommits = START_AFTER_COMMITS, intervalMs = CHECKPOINT_INTERVAL_MS, onFailure = warnOfFailure } = {},
): WalCheckpointer {
  let commits = 0;
  // once: a worker that failed is not started again (the writer checkpoints as SQLite does)
  let started = false;
  let worker: Worker | null = null;
  let stopping = false;
  const gone = (reason: string) => {
    worker = null;
    if (stopping) return;
    setWriterAutocheckpoint(SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES);
    onFailure(reason);
  };
  const start = () => {
    let w: Worker;
    try {
      // no execArgv of the parent's: a flag such as --input-type=module would make the source an ES module, without require
      w = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { filename, driverModule, intervalMs } });
    } catch (error) {
      // no thread to be had (a process limit): the writer checkpoints as SQLite does
      gone(messageOf(error));
      return;
    }
    worker = w;
    w.on('message', (message: { ready?: boolean; failed?: string }) => {
      if (message.ready && worker === w && !stopping) setWriterAutocheckpoint(WRITER_SAFETY_PAGES);
      if (message.failed !== undefined && worker === w) gone(message.failed);
    });
    w.on('error', (error) => {
      if (worker === w) gone(messageOf(error));
    });
    w.on('exit', (code) => {
      if (worker === w) gone(`the thread exited (code ${code})`);
    });
    // a thread that only checkpoints must not keep the process alive; after the listeners, since
    // adding a 'message' listener refs the worker again
    w.unref();
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
