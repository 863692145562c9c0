import { WarrantError } from '../core/errors.js';

/**
 * DNS-rebinding protection (spec 01): the UI and /mcp accept only allowlisted Host and
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

  async check(request: Request): Promise<void> {
    const host = request.headers.get('host') ?? new URL(request.url).host;
    if (!this.allows(host)) throw new WarrantError('host-not-allowed', `Host ${JSON.stringify(host)} is not on this server's allowlist (DNS-rebinding protection); add it with \`warrant settings set allowed_hosts\`.`, { status: 403 });
    const origin = request.headers.get('origin');
    if (origin && origin !== 'null') {
      let originHost: string;
      try {
        originHost = new URL(origin).host;
      } catch {
        throw new WarrantError('origin-not-allowed', `Origin ${JSON.stringify(origin)} is not a valid origin.`, { status: 403 });
      }
      if (!this.allows(originHost)) throw new WarrantError('origin-not-allowed', `Origin ${JSON.stringify(origin)} is not on this server's allowlist.`, { status: 403 });
    } else if (origin === 'null') {
      throw new WarrantError('origin-not-allowed', 'Requests from an opaque origin are refused.', { status: 403 });
    }
  }
}
