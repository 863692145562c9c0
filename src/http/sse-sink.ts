import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';

/**
 * Where one live stream's frames go. On the Node server they are written straight to the
 * response: a web stream, Hono's writer and the adapter's reader per frame per subscriber
 * cost a dozen promises each, and with hundreds of subscribers that garbage outlived the
 * young generation (docs/operations.md, "Reliability"). Without a Node response (a request
 * made in process) Hono's SSE stream carries them.
 */
export interface SseSink {
  /** resolves once the connection took the bytes, or is gone (a full socket waits for drain) */
  write(bytes: Uint8Array): Promise<void>;
  /** true once the reader went away */
  readonly aborted: boolean;
  onAbort(listener: () => void): void;
  /** ends the connection at once (a reader that fell behind) */
  cut(): void;
}

/** The event-stream headers; they override what middleware set on the context, which is kept otherwise. */
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' } as const;

/**
 * Answers `c` with an event stream fed by `run`; the stream ends when `run` returns.
 * `run` gets the sink once the headers are on their way.
 */
export function sseResponse(c: Context, run: (sink: SseSink) => Promise<void>, onError: (error: unknown) => void): Response | Promise<Response> {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!outgoing) {
    return streamSSE(c, (stream) =>
      run({
        write: async (bytes) => {
          await stream.write(bytes);
        },
        get aborted() {
          return stream.aborted;
        },
        onAbort: (listener) => stream.onAbort(listener),
        cut: () => void stream.abort(),
      }),
    );
  }
  const sink = nodeSink(c, outgoing);
  run(sink)
    .catch(onError)
    .finally(() => {
      if (!sink.aborted) outgoing.end();
    });
  // @hono/node-server leaves a response carrying this header alone: it is already being written
  return new Response(null, { headers: { 'x-hono-already-sent': 'true' } });
}

function nodeSink(c: Context, res: ServerResponse): SseSink {
  let aborted = false;
  const listeners: (() => void)[] = [];
  const abort = (): void => {
    if (aborted) return;
    aborted = true;
    for (const listener of listeners.splice(0)) listener();
  };
  res.once('close', () => {
    if (!res.writableFinished) abort();
  });
  const headers: Record<string, string> = {};
  c.res.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(200, { ...headers, ...SSE_HEADERS });
  res.flushHeaders();
  return {
    write(bytes) {
      if (aborted || res.write(bytes)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    },
    get aborted() {
      return aborted;
    },
    onAbort(listener) {
      if (aborted) listener();
      else listeners.push(listener);
    },
    cut() {
      abort();
      res.destroy();
    },
  };
}
