import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type RequestOptions } from 'node:http';

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

/** What a request answered: the status and the whole body, read before the request settles. */
interface ApiResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  text(): string;
  json<T = unknown>(): T;
}

/**
 * Keep-alive connections, idle ones closed after IDLE_SOCKET_MS (before any server or proxy
 * drops them under a request) and unreferenced by Node (a finished command still exits).
 * node:http rather than fetch: fetch loads undici on first use (≈ 50 ms of a CLI command's
 * start) and costs ≈ 3× the CPU per call — on the runner's thread that relays the person's
 * keys (bench/README.md). node:https loads only for an https URL (TLS is slow to load).
 */
const IDLE_SOCKET_MS = 4_000;
/** Without `timeoutMs`, a request that hears nothing for this long fails (fetch's own limit): a dead connection must not hang a runner. */
const SILENT_ANSWER_MS = 300_000;
const httpAgent = new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
let httpsTransport: Promise<{ agent: HttpAgent; request: typeof httpRequest }> | null = null;

async function transportFor(url: URL): Promise<{ agent: HttpAgent; request: typeof httpRequest }> {
  if (url.protocol === 'http:') return { agent: httpAgent, request: httpRequest };
  if (url.protocol !== 'https:') throw new Error(`unsupported scheme ${url.protocol}`);
  httpsTransport ??= import('node:https').then((https) => ({
    agent: new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    request: https.request,
  }));
  return httpsTransport;
}

class RequestTimedOut extends Error {}

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

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    let res: ApiResponse;
    try {
      const payload = body !== undefined ? Buffer.from(JSON.stringify(body)) : null;
      const sent = payload ? { 'content-type': 'application/json', 'content-length': String(payload.length), ...headers } : headers;
      res = await send(new URL(this.options.baseUrl + path), method, this.headers(sent), payload, this.options.timeoutMs);
    } catch (error) {
      if (error instanceof RequestTimedOut) {
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
    if (res.status >= 300 && res.status <= 399 && typeof res.headers.location === 'string') {
      // a redirect is not followed (a POST must not be re-sent elsewhere): the address is the user's to fix
      throw new ApiError(
        res.status,
        'server-redirected',
        `The server at ${this.options.baseUrl} redirects to ${res.headers.location}; set WARRANT_URL to the Warrant server's own address.`,
        {},
      );
    }
    if (res.status < 200 || res.status > 299) {
      let parsed: Record<string, unknown> = {};
      try {
        parsed = res.json<Record<string, unknown>>() ?? {};
      } catch {
        parsed = {};
      }
      throw new ApiError(res.status, String(parsed.error ?? `http-${res.status}`), String(parsed.message ?? res.statusText), parsed);
    }
    return res;
  }

  async json<T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
    const res = await this.request(method, path, body, headers);
    return res.json<T>();
  }

  async text(method: string, path: string, body?: unknown): Promise<string> {
    const res = await this.request(method, path, body);
    return res.text();
  }
}

/** One request, its whole answer read; rejects with RequestTimedOut past `timeoutMs` (headers and body both). */
async function send(url: URL, method: string, headers: Record<string, string>, payload: Buffer | null, timeoutMs: number | undefined): Promise<ApiResponse> {
  const { agent, request } = await transportFor(url);
  return new Promise<ApiResponse>((resolve, reject) => {
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    const options: RequestOptions = { method, headers, agent };
    const req = request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      // a connection that ends mid-answer: no 'end' comes, and the caller must not wait for one
      res.on('close', () => {
        if (!res.complete) fail(new Error('the server closed the connection before its answer was complete'));
      });
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          headers: res.headers,
          text: () => text,
          json: <T>() => JSON.parse(text) as T,
        });
      });
    });
    const timer = timeoutMs
      ? setTimeout(() => {
          reject(new RequestTimedOut());
          req.destroy();
        }, timeoutMs)
      : undefined;
    if (!timeoutMs) req.setTimeout(SILENT_ANSWER_MS, () => req.destroy(new Error(`the server sent nothing for ${SILENT_ANSWER_MS / 1000} s`)));
    req.on('error', fail);
    req.end(payload ?? undefined);
  });
}

export function refPath(ref: string): string {
  return encodeURIComponent(ref);
}
