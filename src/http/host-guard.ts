import { WarrantError } from '../core/errors.js';

/**
 * DNS-rebinding protection (docs/concepts.md): the UI and /mcp accept only allowlisted Host and
 * Origin headers. The allowlist is a store setting, loaded at start.
 */
export class HostGuard {
  private hosts: Set<string>;
  constructor(allowed: readonly string[]) {
    this.hosts = new Set(allowed.map((h) => h.toLowerCase()));
  }

  static defaults(extra: readonly string[] = []): string[] {
    return ['localhost', '127.0.0.1', '[::1]', ...extra];
  }

  setAllowed(allowed: readonly string[]): void {
    this.hosts = new Set(allowed.map((h) => h.toLowerCase()));
  }

  allows(hostHeader: string | null): boolean {
    if (!hostHeader) return false;
    const host = hostHeader.toLowerCase().replace(/:\d+$/, '');
    return this.hosts.has(host);
  }

  /**
   * Host on the allowlist; Origin, when sent, the server's own: the same scheme, host and port
   * as the request itself (a page on another port of the same host is another origin).
   */
  async check(request: Request): Promise<void> {
    const requestUrl = new URL(request.url);
    const host = request.headers.get('host') ?? requestUrl.host;
    if (!this.allows(host))
      throw new WarrantError(
        'host-not-allowed',
        `Host ${JSON.stringify(host)} is not on this server's allowlist (DNS-rebinding protection); add it with \`warrant settings set allowed_hosts\`.`,
      );
    const origin = request.headers.get('origin');
    if (origin === null) return;
    if (origin === 'null') throw new WarrantError('origin-not-allowed', 'Requests from an opaque origin are refused.');
    const own = ownOrigin(requestUrl.protocol, host);
    let sent: string | null;
    try {
      const url = new URL(origin);
      sent = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
    } catch {
      throw new WarrantError('origin-not-allowed', `Origin ${JSON.stringify(origin)} is not a valid origin.`);
    }
    if (sent === null || own === null || sent !== own) {
      throw new WarrantError(
        'origin-not-allowed',
        `Origin ${JSON.stringify(origin)} is not this server's own origin${own ? ` (${own})` : ''}: scheme, host and port must all match.`,
      );
    }
  }
}

/** `scheme://host[:port]` as a browser would send it for this request (default ports dropped). */
function ownOrigin(protocol: string, host: string): string | null {
  try {
    return new URL(`${protocol}//${host}`).origin;
  } catch {
    return null;
  }
}
