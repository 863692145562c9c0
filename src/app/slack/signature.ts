import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's replay window (docs/human-messages.md, docs/operations.md): a request older than 5 minutes is refused. */
const SLACK_REPLAY_WINDOW_S = 5 * 60;

type SignatureVerdict = 'ok' | 'missing' | 'stale' | 'bad-signature';

/**
 * Verifies `X-Slack-Signature` = `v0=` HMAC-SHA256(signing secret, `v0:{timestamp}:{raw body}`),
 * compared in constant time, with the timestamp inside the replay window.
 */
export function verifySlackSignature(
  secret: string,
  timestamp: string | undefined,
  rawBody: string,
  signature: string | undefined,
  nowMs: number,
): SignatureVerdict {
  if (!timestamp || !signature) return 'missing';
  const ts = Number(timestamp);
  if (!Number.isFinite(ts) || Math.abs(nowMs / 1000 - ts) > SLACK_REPLAY_WINDOW_S) return 'stale';
  const expected = 'v0=' + createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`, 'utf8').digest('hex');
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(signature, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b) ? 'ok' : 'bad-signature';
}

/** For tests and tools that must send a real signed request. */
export function signSlackRequest(secret: string, timestamp: string, rawBody: string): string {
  return 'v0=' + createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`, 'utf8').digest('hex');
}
