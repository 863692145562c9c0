/** The CLI's HTTP client: the CLI is transport only; the server decides and renders. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly token: string,
    message: string,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

interface ApiClientOptions {
  baseUrl: string;
  token: string | null;
  /** give up on a request after this long (a hook must never hang its agent); none by default */
  timeoutMs?: number;
}

export function clientOptionsFromEnv(env: NodeJS.ProcessEnv): ApiClientOptions {
  const baseUrl = (env.WARRANT_URL || 'http://127.0.0.1:7420').replace(/\/+$/, '');
  const token = env.WARRANT_TOKEN || env.WARRANT_SESSION_TOKEN || null;
  return { baseUrl, token };
}

export class ApiClient {
  constructor(private readonly options: ApiClientOptions) {}

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { 'x-warrant-client': 'cli', ...extra };
    if (this.options.token) h.authorization = `Bearer ${this.options.token}`;
    return h;
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(this.options.baseUrl + path, {
        method,
        headers: this.headers(body !== undefined ? { 'content-type': 'application/json', ...headers } : headers),
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        ...(this.options.timeoutMs ? { signal: AbortSignal.timeout(this.options.timeoutMs) } : {}),
      });
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') {
        throw new ApiError(
          0,
          'server-timeout',
          `The Warrant server at ${this.options.baseUrl} did not answer within ${this.options.timeoutMs} ms; nothing is known to have been recorded.`,
          {},
        );
      }
      throw new ApiError(
        0,
        'server-unreachable',
        `Cannot reach the Warrant server at ${this.options.baseUrl} (${(error as Error).message}). Is \`warrant serve\` running? Set WARRANT_URL.`,
        {},
      );
    }
    if (!res.ok) {
      let parsed: Record<string, unknown> = {};
      try {
        parsed = (await res.json()) as Record<string, unknown>;
      } catch {
        parsed = {};
      }
      throw new ApiError(res.status, String(parsed.error ?? `http-${res.status}`), String(parsed.message ?? res.statusText), parsed);
    }
    return res;
  }

  async json<T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
    const res = await this.request(method, path, body, headers);
    return (await res.json()) as T;
  }

  async text(method: string, path: string, body?: unknown): Promise<string> {
    const res = await this.request(method, path, body);
    return res.text();
  }
}

export function refPath(ref: string): string {
  return encodeURIComponent(ref);
}
