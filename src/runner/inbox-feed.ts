import type { Writable } from 'node:stream';
import type { ApiClient } from '../cli/api-client.js';

interface LeasedItem {
  id: number;
  kind: string;
  mode: string;
  frame: { format: string; text: string };
}

/**
 * `warrant run --inbox`: leases inbox items and writes each as one JSON line on the child's
 * stdin — `{"item_id", "kind", "mode", "format", "text"}` (a `warrant-message` frame's text is
 * itself JSON) — acknowledging what was written on the next round. Returns a stop function.
 */
export function feedInbox(client: ApiClient, sessionId: number, stdin: Writable, log: (line: string) => void, intervalMs = 1000): () => Promise<void> {
  let stopped = false;
  let written: number[] = [];
  let wake: (() => void) | null = null;
  const ack = async () => {
    if (written.length === 0) return;
    await client.json('POST', `/api/v1/sessions/${sessionId}/inbox/ack`, { ids: written });
    written = [];
  };
  const loop = (async () => {
    while (!stopped) {
      try {
        await ack();
        const leased = await client.json<{ items: LeasedItem[] }>('POST', `/api/v1/sessions/${sessionId}/inbox/lease`, {});
        for (const item of leased.items) {
          if (stopped || stdin.destroyed) break;
          stdin.write(JSON.stringify({ item_id: item.id, kind: item.kind, mode: item.mode, format: item.frame.format, text: item.frame.text }) + '\n');
          written.push(item.id);
        }
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
    (wake as (() => void) | null)?.();
    await loop;
    await ack().catch(() => {});
  };
}

/**
 * Without --inbox the agent reads its inbox over MCP, but a stop must still reach the process:
 * the runner watches for a pending stop `control` item (listing changes nothing) and signals
 * the child. Returns a stop function.
 */
export function watchForStop(client: ApiClient, sessionId: number, onStop: () => void, log: (line: string) => void, intervalMs = 1000): () => void {
  let stopped = false;
  let fired = false;
  const timer = setInterval(() => {
    if (stopped || fired) return;
    client
      .json<{ items: { id: number; kind: string; state: string }[] }>('GET', `/api/v1/sessions/${sessionId}/inbox?kind=control&state=pending,leased`)
      .then((r) => {
        if (!fired && r.items.length > 0) {
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
