/**
 * Mixed REST load for the reliability suites: each worker creates a session, then renames,
 * reads and lists in turn, on its own keep-alive connection. Only a 2xx answer is an
 * acknowledgement; every answer is checked against the statuses the API documents.
 */
export interface Ack {
  kind: 'create' | 'patch' | 'archive';
  id: number;
  title: string;
}

export interface LoadOptions {
  workers: number;
  /** archive every other session (crash runs: a third kind of write) */
  archive?: boolean;
  /**
   * shutdown runs: a worker ends at its first transport error (the node stopped accepting)
   * instead of retrying; crash runs retry until stopped
   */
  endOnTransportError?: boolean;
}

export interface MixedLoad {
  readonly acks: Ack[];
  /** answers that are neither the op's success nor a documented refusal (e.g. any 500) */
  readonly unexpected: string[];
  /** documented refusals seen, by token (`shutting-down`, …) */
  readonly refusals: Map<string, number>;
  readonly answered: number;
  readonly transportErrors: number;
  /** answers that arrived after `mark()` was called (e.g. after the signal) */
  readonly answeredAfterMark: number;
  mark(): void;
  stop(): Promise<void>;
  /** resolves once every worker has ended by itself (endOnTransportError) */
  readonly done: Promise<void>;
}

type Op = 'create' | 'patch' | 'read' | 'list' | 'archive';
const SUCCESS: Record<Op, number> = { create: 201, patch: 200, read: 200, list: 200, archive: 200 };
/** refusals a client may see from a healthy node under load or at shutdown (docs/api.md) */
const DOCUMENTED_REFUSALS = new Map<number, Set<string>>([[503, new Set(['shutting-down'])]]);

export function mixedLoad(url: string, token: string, options: LoadOptions): MixedLoad {
  const acks: Ack[] = [];
  const unexpected: string[] = [];
  const refusals = new Map<string, number>();
  let answered = 0;
  let transportErrors = 0;
  let answeredAfterMark = 0;
  let marked = false;
  let stopped = false;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  const call = async (op: Op, method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    answered++;
    if (marked) answeredAfterMark++;
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      /* checked below */
    }
    if (res.status === SUCCESS[op] && json) return json;
    const token = json?.error;
    if (DOCUMENTED_REFUSALS.get(res.status)?.has(token)) {
      refusals.set(token, (refusals.get(token) ?? 0) + 1);
      return null;
    }
    unexpected.push(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return null;
  };

  const worker = async (w: number): Promise<void> => {
    let session: { id: number } | null = null;
    for (let n = 0; !stopped; n++) {
      try {
        const step = n % 5;
        if (session === null || step === 0) {
          const title = `w${w}-${n}`;
          const created = await call('create', 'POST', '/api/v1/sessions', { title });
          if (created) {
            session = { id: created.session.id };
            acks.push({ kind: 'create', id: session.id, title });
          }
        } else if (step === 1 || step === 3) {
          const title = `w${w}-${n} renamed`;
          if (await call('patch', 'PATCH', `/api/v1/sessions/${session.id}`, { title })) acks.push({ kind: 'patch', id: session.id, title });
        } else if (step === 2) {
          await call('read', 'GET', `/api/v1/sessions/${session.id}`);
        } else if (options.archive && n % 10 === 4) {
          if (await call('archive', 'POST', `/api/v1/sessions/${session.id}/archive`, {})) acks.push({ kind: 'archive', id: session.id, title: '' });
          session = null;
        } else {
          await call('list', 'GET', '/api/v1/sessions?limit=20');
        }
      } catch {
        transportErrors++; // no answer: the write (if any) was not acknowledged
        if (options.endOnTransportError || stopped) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  const done = Promise.all(Array.from({ length: options.workers }, (_, w) => worker(w))).then(() => {});
  return {
    acks,
    unexpected,
    refusals,
    get answered() {
      return answered;
    },
    get transportErrors() {
      return transportErrors;
    },
    get answeredAfterMark() {
      return answeredAfterMark;
    },
    mark() {
      marked = true;
    },
    async stop() {
      stopped = true;
      await done;
    },
    done,
  };
}

/** Waits until `predicate` holds, polling; throws after `timeoutMs` (a hang guard, not a timing assertion). */
export async function until(predicate: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not reached before the hang guard');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** `1234567` → `1,234,567` for the printed figures. */
export const figure = (n: number): string => n.toLocaleString('en-US');

/** Prints one suite's figures where the CI log shows them. */
export function report(line: string): void {
  process.stdout.write(`reliability: ${line}\n`);
}

/** How big the runs are: `RELIABILITY_SCALE=full` for the on-demand run, CI size otherwise. */
export const FULL = process.env.RELIABILITY_SCALE === 'full';
export const scaled = <T>(ci: T, full: T): T => (FULL ? full : ci);
