import type { Writable } from 'node:stream';
import type { ApiClient } from '../cli/api-client.js';

/** An item as `…/inbox/lease` hands it to the runner. */
export interface LeasedItem {
  id: number;
  kind: string;
  mode: string;
  frame: { format: string; text: string };
}

/**
 * How a frame is written in an agent's own input protocol (one adapter per provider). Writing
 * is not delivering: an item written is `written`, and only the agent's prompt hook reporting
 * the same text makes it `delivered` (docs/design/agent-runtimes.md, "delivery").
 */
interface InputAdapter {
  /** the bytes one user turn takes on the agent's stdin */
  encode(frameText: string): string;
}

/** Claude Code headless: `claude -p --input-format stream-json`, one user message per line. */
const claudeStreamJson: InputAdapter = {
  encode: (frameText) => JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: frameText }] } }) + '\n',
};

const INPUT_ADAPTERS: Readonly<Record<string, InputAdapter>> = { 'claude-code': claudeStreamJson };

export function inputAdapterFor(provider: string | undefined): InputAdapter | null {
  return provider ? (INPUT_ADAPTERS[provider] ?? null) : null;
}

/**
 * `warrant run --inbox`: leases inbox items, writes each frame in the provider's input protocol,
 * and reports them `written`. Returns a stop function. Items leased but not written (the runner
 * stopped first) return to pending when their lease lapses.
 */
export function feedInbox(
  client: ApiClient,
  sessionId: number,
  adapter: InputAdapter,
  stdin: Writable,
  log: (line: string) => void,
  intervalMs = 500,
): () => Promise<void> {
  let stopped = false;
  let wake: (() => void) | null = null;
  const loop = (async () => {
    while (!stopped) {
      try {
        const leased = await client.json<{ items: LeasedItem[] }>('POST', `/api/v1/sessions/${sessionId}/inbox/lease`, {});
        const written: number[] = [];
        for (const item of leased.items) {
          if (item.kind === 'control') continue; // a stop acts on the process (watchForStop), not on the agent's input
          if (stopped || stdin.destroyed || !stdin.writable) break;
          stdin.write(adapter.encode(item.frame.text));
          written.push(item.id);
        }
        if (written.length > 0) await client.json('POST', `/api/v1/sessions/${sessionId}/inbox/written`, { ids: written });
      } catch (error) {
        log(`warrant run: inbox: ${(error as Error).message}`);
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, intervalMs);
        wake = () => {
          clearTimeout(t);
          r();
        };
      });
    }
  })();
  return async () => {
    stopped = true;
    wake?.();
    await loop;
  };
}

/**
 * A stop request (a `control` item) must reach the process whether or not the runner feeds the
 * inbox: the runner watches for a pending one (listing changes nothing) and signals the child.
 * The server retires a stop's item when the runtime ends, so a later activation never sees it.
 */
export function watchForStop(client: ApiClient, sessionId: number, onStop: () => void, log: (line: string) => void, intervalMs = 1000): () => void {
  let stopped = false;
  let fired = false;
  const timer = setInterval(() => {
    if (stopped || fired) return;
    client
      .json<{ items: { id: number; kind: string; state: string }[] }>('GET', `/api/v1/sessions/${sessionId}/inbox?kind=control&state=pending,leased`)
      .then((r) => {
        if (!fired && !stopped && r.items.length > 0) {
          fired = true;
          onStop();
        }
      })
      .catch((error: unknown) => log(`warrant run: watching for stop: ${(error as Error).message}`));
  }, intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
