import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';

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
      res.once('close', () => this.forget(res));
    });
  }

  get size(): number {
    return this.open.size;
  }

  /**
   * Stops accepting connections; from now on every answer closes its connection. Unlike
   * `server.close()`, idle keep-alive connections stay open until the drain ends: a request a
   * client already sent on one gets a real answer (503 `shutting-down`), not a reset.
   */
  beginClosing(): void {
    this.closing = true;
    for (const res of this.open.keys()) if (!res.headersSent) res.setHeader('connection', 'close');
    NetServer.prototype.close.call(this.server);
  }

  /**
   * Resolves once every accepted request has been answered and no request already sent on an
   * open connection is left unread (a busy event loop reads sockets late: look again after
   * the poll phase until a full turn finds nothing new).
   */
  async settled(): Promise<void> {
    for (;;) {
      await this.idle();
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      if (this.open.size === 0) return;
    }
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

  private forget(res: ServerResponse): void {
    this.open.delete(res);
    if (this.open.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
