import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../app/kernel.js';

/**
 * CSRF tokens (docs/api.md: "every form carries a CSRF token"). A signed-in browser's token is
 * derived from the server secret and its web credential, so nothing is stored and every
 * node derives the same one; before sign-in, from a random pre-sign-in cookie
 * (double-submit, signed). Checked on every unsafe method; htmx sends it as a header.
 */
export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'x-csrf-token';

function mac(ctx: AppContext, purpose: string, subject: string): string {
  return createHmac('sha256', ctx.serverSecret).update(`warrant-web-csrf:${purpose}:${subject}`).digest('base64url');
}

export function csrfTokenForCredential(ctx: AppContext, credentialId: number): string {
  return mac(ctx, 'signed-in', String(credentialId));
}

export function csrfTokenForPreSignIn(ctx: AppContext, preCookie: string): string {
  return mac(ctx, 'pre-sign-in', preCookie);
}

export function csrfMatches(expected: string, presented: string | null | undefined): boolean {
  if (!presented) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
