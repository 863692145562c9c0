import { createHash } from 'node:crypto';
import { WarrantError } from '../../core/errors.js';
import { claimIdempotencyKey, completeIdempotencyKey, findIdempotencyKey } from '../../store/idempotency-repo.js';
import { canonicalJson } from '../audit.js';
import type { Caller } from '../caller.js';
import type { WriteScope } from '../write-scope.js';

/**
 * An idempotency key for a delivery (the web forms send one per rendered form): a double
 * submit delivers once and records the human's words once. Keys share the create's table
 * and 24-hour retention (docs/concepts.md), in their own namespace so a create's key never answers
 * a delivery.
 */
interface DeliveryKey {
  stored: string;
  hash: string;
  credentialId: number;
}

export function deliveryKey(caller: Caller, key: string, request: Record<string, unknown>): DeliveryKey {
  if (caller.credentialId === null) throw new WarrantError('invalid-request', 'idempotency key: needs a credential to scope the key to.');
  const hash = createHash('sha256')
    .update(canonicalJson(JSON.parse(JSON.stringify(request))))
    .digest('hex');
  return { stored: `delivery:${key.slice(0, 200)}`, hash, credentialId: caller.credentialId };
}

/** Claims the key in the delivery's transaction; returns the inbox item id of an earlier delivery with it. */
export async function claimDeliveryKey(w: WriteScope, k: DeliveryKey): Promise<number | null> {
  const prior =
    (await findIdempotencyKey(w.tx, k.credentialId, k.stored)) ??
    (await claimIdempotencyKey(w.tx, { credentialId: k.credentialId, key: k.stored, requestHash: k.hash, now: w.now }));
  if (!prior) return null;
  if (prior.requestHash !== k.hash) {
    throw new WarrantError(
      'idempotency-key-mismatch',
      'This form was already sent with different content or to another session; nothing was delivered. Reload the page to send a new message.',
    );
  }
  if (prior.response === null) throw new WarrantError('idempotency-key-in-flight', 'This message is still being delivered; retry shortly.');
  return (JSON.parse(prior.response) as { inbox_item_id: number }).inbox_item_id;
}

export async function completeDeliveryKey(w: WriteScope, k: DeliveryKey, sessionId: number, inboxItemId: number): Promise<void> {
  await completeIdempotencyKey(w.tx, k.credentialId, k.stored, sessionId, JSON.stringify({ inbox_item_id: inboxItemId }));
}
