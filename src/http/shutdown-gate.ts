import type { MiddlewareHandler } from 'hono';
import type { HttpEnv } from './env.js';

/**
 * The node's admission gate for shutdown (docs/operations.md, "Shutdown"): once closed, every
 * request that reaches the app is answered `503 shutting-down` with `Connection: close`
 * before it touches the store, so a client retries elsewhere instead of racing the store's
 * closing. Requests admitted before it closed run to completion.
 */
export class ShutdownGate {
  private closing = false;

  get closed(): boolean {
    return this.closing;
  }

  close(): void {
    this.closing = true;
  }

  middleware(): MiddlewareHandler<HttpEnv> {
    return async (c, next) => {
      if (!this.closing) return next();
      c.header('connection', 'close');
      c.header('retry-after', '1');
      return c.json({ error: 'shutting-down', message: 'This node is shutting down; nothing was done. Retry on another node or once it is back.' }, 503);
    };
  }
}
