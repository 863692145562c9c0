import { systemCaller } from '../../src/app/caller.js';
import { issueSignInLink } from '../../src/app/web-auth.js';
import type { Harness } from './harness.js';

export interface WebResponse {
  status: number;
  text: string;
  headers: Headers;
  /** the redirect target, when any */
  location: string | null;
  /** every Set-Cookie line of this response */
  setCookies: string[];
}

export interface WebRequestOptions {
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** send as htmx does (HX-Request, the CSRF header instead of the field) */
  htmx?: boolean;
  /** leave the CSRF token out (forgery tests) */
  noCsrf?: boolean;
  /** a full URL base instead of http://localhost (the TLS cookie test) */
  base?: string;
}

const CSRF_IN_PAGE = /name="_csrf" value="([^"]+)"/;

/**
 * A browser-shaped client for in-process web UI tests: keeps cookies, sends Host and a
 * same-origin Origin, and carries the CSRF token the last page it read gave it.
 */
export class WebClient {
  readonly cookies = new Map<string, string>();
  csrf: string | null = null;

  constructor(private readonly h: Harness) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, o: WebRequestOptions = {}): Promise<WebResponse> {
    const base = o.base ?? 'http://localhost';
    const headers: Record<string, string> = { host: new URL(base).host, ...(o.headers ?? {}) };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    if (o.htmx) headers['hx-request'] = 'true';
    let body: string | undefined;
    if (method !== 'GET') {
      headers.origin ??= base;
      const form = { ...(o.form ?? {}) };
      if (!o.noCsrf && this.csrf) {
        if (o.htmx) headers['x-csrf-token'] ??= this.csrf;
        else form._csrf ??= this.csrf;
      }
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    const res = await this.h.service.app.request(base + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const token = CSRF_IN_PAGE.exec(text)?.[1];
    if (token) this.csrf = token;
    return { status: res.status, text, headers: res.headers, location: res.headers.get('location'), setCookies };
  }

  get(path: string, o: WebRequestOptions = {}): Promise<WebResponse> {
    return this.request('GET', path, o);
  }

  post(path: string, form: Record<string, string> = {}, o: WebRequestOptions = {}): Promise<WebResponse> {
    return this.request('POST', path, { ...o, form });
  }

  /** Signs in through a real one-time link: the confirmation page, then its form. */
  async signInWithLink(key: string | null = null): Promise<WebResponse> {
    const link = await issueSignInLink(this.h.ctx, systemCaller('cli'), key, { issuedVia: 'cli' });
    const page = await this.get(`/sign-in/link/${link.secret}`);
    if (page.status !== 200) throw new Error(`link page: ${page.status} ${page.text.slice(0, 300)}`);
    const res = await this.post('/sign-in/link', { link: link.secret, next: '/' });
    if (res.status !== 303) throw new Error(`link sign-in: ${res.status} ${res.text.slice(0, 300)}`);
    await this.get('/'); // a signed-in page: its CSRF token replaces the pre-sign-in one
    return res;
  }
}

/** The visible text of an HTML response, roughly (tags dropped, entities kept). */
export function textOf(html: string): string {
  return html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
}
