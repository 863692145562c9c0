import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Every request this node has accepted and not yet finished answering, tracked on the Node
 * server itself (REST, MCP and web alike): a response counts until its socket is done with
 * it, so a streamed body (an MCP tool result) counts until its last byte.
 */
export class InFlightResponses {
  private readonly open = new Map<ServerResponse, IncomingMessage>();
  private readonly idleWaiters: (() => void)[] = [];
  private closing = false;

  constructor(private readonly server: Server) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.open.set(res, req);
      // during shutdown no connection is kept for another request
      if (this.closing && !res.headersSent) res.setHeader('connection', 'close');
      res.once('close', () => this.settled(res));
    });
  }

  get size(): number {
    return this.open.size;
  }

  /** From now on answers close their connection; idle keep-alive connections are closed now. */
  beginClosing(): void {
    this.closing = true;
    for (const res of this.open.keys()) if (!res.headersSent) res.setHeader('connection', 'close');
    this.server.closeIdleConnections();
  }

  /** Resolves once every accepted request has been answered. */
  idle(): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Cuts the streams still open: GETs whose answer has begun and not ended (a live stream
   * asked to end whose reader stopped reading, an MCP listening stream). A request still
   * being worked on has sent no headers yet and is left alone.
   */
  cutStreams(): number {
    let cut = 0;
    for (const [res, req] of this.open) {
      if (req.method === 'GET' && res.headersSent && !res.writableEnded) {
        res.destroy();
        cut++;
      }
    }
    return cut;
  }

  private settled(res: ServerResponse): void {
    this.open.delete(res);
    if (this.closing) this.server.closeIdleConnections();
    if (this.open.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
