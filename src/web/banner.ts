import { systemCaller } from '../app/kernel.js';
import type { AppContext } from '../app/kernel.js';
import { issueSetupCode, issueSignInLink, singleAdmin, SETUP_CODE_TTL_MS, SIGN_IN_LINK_TTL_MS } from '../app/users/index.js';

/** The sign-in URL of a one-time link secret. */
export function signInLinkUrl(base: string, secret: string): string {
  return `${base.replace(/\/+$/, '')}/sign-in/link/${secret}`;
}

/** What the start banner knows about the running server. */
export interface BannerInfo {
  /** the base URL the server listens on, when it listens */
  url: string | null;
}

/**
 * What `warrant serve` prints about the web UI at start (docs/concepts.md): the one-time setup code
 * when the roster is empty, else (single-admin mode) a one-time sign-in link for the admin.
 */
export async function webBannerLines(ctx: AppContext, info: BannerInfo): Promise<string[]> {
  const base = info.url ?? 'http://127.0.0.1:7420';
  const setup = await issueSetupCode(ctx);
  if (setup) {
    return [
      `Web UI: first run — open ${base}/setup and enter this one-time setup code to create the admin:`,
      `  ${setup.code}   (valid ${SETUP_CODE_TTL_MS / 3_600_000} h; a restart prints a new one)`,
    ];
  }
  if (ctx.mode === 'multi-user') {
    return [`Web UI: ${base}/ — every roster human signs in (password: \`warrant users password <key>\`; one-time link: \`warrant users login-link <key>\`).`];
  }
  const admin = await singleAdmin(ctx);
  if (!admin) {
    return ['Web UI: no single admin is configured (set WARRANT_ADMIN_USER or run `warrant init`): nobody can sign in, and web capture records nothing.'];
  }
  const link = await issueSignInLink(ctx, systemCaller(), null, { issuedVia: 'serve' });
  return [
    `Web UI: sign in as ${admin.key} with this one-time link (valid ${SIGN_IN_LINK_TTL_MS / 60_000} min; \`warrant users login-link\` prints another):`,
    `  ${signInLinkUrl(base, link.secret)}`,
  ];
}
