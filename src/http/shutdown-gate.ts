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
  /** admitted requests whose handler has not returned yet */
  private running = 0;
  private idleWaiters: (() => void)[] = [];

  get closed(): boolean {
    return this.closing;
  }

  close(): void {
    this.closing = true;
  }

  /**
   * Resolves once no admitted request's handler is still running. The server's in-flight count
   * forgets a request when its connection closes, and a client that leaves does not stop its
   * handler: without this, the store could close under a write whose client had gone.
   */
  handlersDone(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  middleware(): MiddlewareHandler<HttpEnv> {
    return async (c, next) => {
      if (!this.closing) {
        this.running++;
        try {
          return await next();
        } finally {
          if (--this.running === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
        }
      }
      c.header('connection', 'close');
      c.header('retry-after', '1');
      return c.json({ error: 'shutting-down', message: 'This node is shutting down; nothing was done. Retry on another node or once it is back.' }, 503);
    };
  }
}
