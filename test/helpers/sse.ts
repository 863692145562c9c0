/** Reads Server-Sent Events from a streaming Response. */
export interface SseEvent {
  event: string;
  data: string;
  id: string | null;
}

/** One event block (the text between blank lines): its type, id and data lines. */
export function parseSseBlock(block: string): SseEvent & { dataLines: number } {
  let event = 'message';
  let id: string | null = null;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    else if (line.startsWith('id:')) id = line.slice(3).trim();
  }
  return { event, data: data.join('\n'), id, dataLines: data.length };
}

export class SseReader {
  private buffer = '';
  private readonly decoder = new TextDecoder();
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly queue: SseEvent[] = [];

  constructor(response: Response) {
    this.reader = response.body!.getReader();
  }

  /** The next event whose type passes `filter`, or throws after `timeoutMs` (a hang guard, not a timing assertion). */
  async next(filter: (e: SseEvent) => boolean = () => true, timeoutMs = 15_000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.queue.findIndex(filter);
      if (i >= 0) return this.queue.splice(i, 1)[0]!;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('no matching SSE event arrived');
      const chunk = await Promise.race([this.reader.read(), new Promise<null>((r) => setTimeout(() => r(null), remaining))]);
      if (chunk === null) continue;
      if (chunk.done) throw new Error('SSE stream ended');
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
      let sep: number;
      while ((sep = this.buffer.indexOf('\n\n')) >= 0) {
        const block = this.buffer.slice(0, sep);
        this.buffer = this.buffer.slice(sep + 2);
        const { dataLines, ...parsed } = parseSseBlock(block);
        if (dataLines > 0 || parsed.event !== 'message') this.queue.push(parsed);
      }
    }
  }

  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}
