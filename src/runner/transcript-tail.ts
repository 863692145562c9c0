import { open, stat } from 'node:fs/promises';
import { ApiError, type ApiClient } from '../cli/api-client.js';

/** A transcript append carries at most this many bytes of lines (docs/design/agent-runtimes.md). */
const TRANSCRIPT_CHUNK_BYTES = 1024 * 1024;

interface Position {
  offset: number;
}

/**
 * Appends what a provider's transcript file gained since the last report, by byte offset, in
 * bounded chunks. The server keeps the expected offset per conversation and refuses an append
 * that does not match it (two stop hooks racing), so a mismatch re-reads the server's offset.
 * Only whole lines are sent; a truncated or rotated file restarts from 0 and says so.
 */
export class TranscriptTail {
  private readonly positions = new Map<string, Position>();
  private disabled: string | null = null;

  constructor(
    private readonly client: ApiClient,
    private readonly log: (line: string) => void,
  ) {}

  get off(): string | null {
    return this.disabled;
  }

  async append(sessionId: number, provider: string, conversationId: string, path: string): Promise<void> {
    if (this.disabled) return;
    const key = `${sessionId}\u0000${provider}\u0000${conversationId}`;
    let position = this.positions.get(key);
    if (!position) {
      const r = await this.client.json<{ next_offset: number }>(
        'GET',
        `/api/v1/sessions/${sessionId}/transcript/position?provider=${encodeURIComponent(provider)}&conversation_id=${encodeURIComponent(conversationId)}`,
      );
      position = { offset: r.next_offset };
      this.positions.set(key, position);
    }
    const size = (await stat(path)).size;
    let restarted = false;
    if (size < position.offset) {
      position.offset = 0;
      restarted = true;
    }
    const handle = await open(path, 'r');
    try {
      for (;;) {
        const chunk = await readWholeLines(handle, position.offset, TRANSCRIPT_CHUNK_BYTES);
        if (chunk.lines.length === 0) {
          if (chunk.oversized)
            this.log(
              `warrant run: transcript ${path}: a line at byte ${position.offset} is larger than ${TRANSCRIPT_CHUNK_BYTES} bytes; the rest of this transcript is not recorded.`,
            );
          return;
        }
        try {
          const r = await this.client.json<{ next_offset: number }>('POST', `/api/v1/sessions/${sessionId}/transcript`, {
            provider,
            conversation_id: conversationId,
            offset: position.offset,
            lines: chunk.lines,
            ...(restarted ? { restarted: true } : {}),
          });
          position.offset = r.next_offset;
          restarted = false;
        } catch (error) {
          if (error instanceof ApiError && error.token === 'transcript-offset-mismatch') {
            // another report got there first: continue from where the server is
            const expected = Number(error.body.expected_offset);
            if (!Number.isSafeInteger(expected) || expected === position.offset) throw error;
            position.offset = expected;
            continue;
          }
          if (error instanceof ApiError && error.token === 'transcripts-off') {
            this.disabled = 'transcripts are off on this server (setting `transcripts`)';
            return;
          }
          throw error;
        }
      }
    } finally {
      await handle.close();
    }
  }
}

/** Whole lines from `offset`, at most `maxBytes` of them (without their "\n"). */
async function readWholeLines(
  handle: import('node:fs/promises').FileHandle,
  offset: number,
  maxBytes: number,
): Promise<{ lines: string[]; oversized: boolean }> {
  const buffer = Buffer.alloc(maxBytes + 1);
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
  const data = buffer.subarray(0, bytesRead);
  const lastNewline = data.lastIndexOf(0x0a);
  if (lastNewline < 0) return { lines: [], oversized: bytesRead > maxBytes };
  const text = data.subarray(0, lastNewline).toString('utf8');
  return { lines: text.split('\n'), oversized: false };
}
