import type { Writable } from 'node:stream';
import type { ApiClient } from '../cli/api-client.js';

/**
 * `warrant run --inbox`: leases inbox items and writes each frame as one JSON line to the
 * child's stdin, acknowledging what was written on the next lease. Returns a stop function.
 */
export function feedInbox(client: ApiClient, sessionId: number, stdin: Writable, log: (line: string) => void, intervalMs = 1000): () => Promise<void> {
  let stopped = false;
  let pendingAck: number[] = [];
  const loop = (async () => {
    while (!stopped) {
      try {
        if (pendingAck.length > 0) {
          await client.json('POST', `/api/v1/sessions/${sessionId}/inbox/ack`, { item_ids: pendingAck });
          pendingAck = [];
        }
        const leased = await client.json<{ items: { id: number; frame: unknown }[] }>('POST', `/api/v1/sessions/${sessionId}/inbox/lease`, {});
        for (const item of leased.items) {
          if (stopped || stdin.destroyed) break;
          stdin.write(JSON.stringify(item.frame) + '\n');
          pendingAck.push(item.id);
        }
      } catch (error) {
        log(`warrant run: inbox: ${(error as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    if (pendingAck.length > 0) await client.json('POST', `/api/v1/sessions/${sessionId}/inbox/ack`, { item_ids: pendingAck }).catch(() => {});
  };
}
