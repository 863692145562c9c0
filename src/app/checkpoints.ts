import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { WarrantError } from '../core/errors.js';
import { parseDuration } from '../core/durations.js';
import {
  formatCheckpointBody,
  formatSignedNote,
  formatTreeHeadBody,
  isValidOrigin,
  parseAnyCheckpointBody,
  type CheckpointBody,
  type TreeHead,
  formatSignerKey,
  formatVerifierKey,
  fromBase64,
  isValidKeyName,
  keyHashFromDigest,
  keyHashInput,
  looksLikeVerifierKey,
  parseSignedNote,
  parseSignerKey,
  parseVerifierKey,
  type CheckpointClaim,
} from '../core/signed-note.js';
import { auditHead } from '../store/audit-repo.js';
import { extendTree } from '../store/audit-tree-repo.js';
import { insertCheckpoint, latestCheckpoint, type CheckpointRecord } from '../store/checkpoints-repo.js';
import { getSetting } from '../store/settings-repo.js';
import { sha256Hex } from './audit.js';
import { treeRoot } from './audit-tree.js';
import type { AppContext, IdSource } from './context.js';

/**
 * docs/attribution.md: "An optional Ed25519 key (a setting) signs periodic checkpoints — seq, hash, time —
 * as signed notes, so an exported log can be verified by someone who does not trust the
 * database host." The key is the `checkpoint_key` setting; housekeeping signs a checkpoint
 * when the log has grown and `checkpoint_interval` has passed since the last one.
 */
export const SETTING_CHECKPOINT_KEY = 'checkpoint_key';
export const SETTING_CHECKPOINT_INTERVAL = 'checkpoint_interval';
export const DEFAULT_CHECKPOINT_INTERVAL = '1h';
export const DEFAULT_KEY_NAME = 'warrant-audit';
/** The log's origin line (docs/audit-log.md); unset: the checkpoint key's name, as C2SP recommends. */
export const SETTING_AUDIT_ORIGIN = 'audit_origin';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface CheckpointSigner {
  name: string;
  keyHash: number;
  privateKey: KeyObject;
  publicKey: Uint8Array;
  /** `<name>+<hash>+<base64>`: what verifiers are given */
  verifierKey: string;
}

function keyHashOf(name: string, publicKey: Uint8Array): number {
  return keyHashFromDigest(sha256Hex(keyHashInput(name, publicKey)));
}

function rawPublicKey(key: KeyObject): Uint8Array {
  const der = key.export({ format: 'der', type: 'spki' });
  return new Uint8Array(der.subarray(der.length - 32));
}

/** A new signer key in the note format (`PRIVATE+KEY+…`), from 32 random bytes. */
export function generateSignerKey(ids: Pick<IdSource, 'bytes'>, name = DEFAULT_KEY_NAME): string {
  if (!isValidKeyName(name)) throw new WarrantError('invalid-key', 'key name: 1–64 printable characters without spaces or "+".');
  const seed = ids.bytes(32);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = rawPublicKey(createPublicKey(privateKey));
  return formatSignerKey({ name, keyHash: keyHashOf(name, publicKey), key: new Uint8Array(seed) });
}

/** Parses and checks a stored signer key (its key hash must match its public key). */
export function signerFromText(text: string): CheckpointSigner {
  const parsed = parseSignerKey(text);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(parsed.key)]), format: 'der', type: 'pkcs8' });
  const publicKey = rawPublicKey(createPublicKey(privateKey));
  const keyHash = keyHashOf(parsed.name, publicKey);
  if (keyHash !== parsed.keyHash) throw new WarrantError('invalid-key', 'checkpoint key: its key hash does not match the key (a copy error?).');
  return { name: parsed.name, keyHash, privateKey, publicKey, verifierKey: formatVerifierKey({ name: parsed.name, keyHash, key: publicKey }) };
}

/** Signs a tree head as a C2SP `tlog-checkpoint` note (what Warrant signs now). */
export function signTreeHeadNote(signer: CheckpointSigner, head: TreeHead): string {
  const body = formatTreeHeadBody(head);
  const signature = new Uint8Array(sign(null, Buffer.from(body, 'utf8'), signer.privateKey));
  return formatSignedNote(body, [{ name: signer.name, keyHash: signer.keyHash, signature }]);
}

/** Signs a chain-head claim in the body earlier versions wrote (tests of legacy checkpoints). */
export function signCheckpointNote(signer: CheckpointSigner, claim: CheckpointClaim): string {
  const body = formatCheckpointBody(claim);
  const signature = new Uint8Array(sign(null, Buffer.from(body, 'utf8'), signer.privateKey));
  return formatSignedNote(body, [{ name: signer.name, keyHash: signer.keyHash, signature }]);
}

/** A public key as a verifier gives it: the note verifier form, raw base64, or a PEM (inline or a file path). */
export interface VerifierKey {
  /** null when the key came without a name (raw or PEM): any signature line the key verifies counts */
  name: string | null;
  publicKey: Uint8Array;
}

export function parsePublicKeyInput(input: string): VerifierKey {
  let text = input.trim();
  // a path to a file holding any of the forms below
  if (existsSync(text) && statSync(text).isFile()) text = readFileSync(text, 'utf8').trim();
  if (text.includes('BEGIN PUBLIC KEY')) {
    try {
      return { name: null, publicKey: rawPublicKey(createPublicKey(text)) };
    } catch {
      throw new WarrantError('invalid-key', '--public-key: not an Ed25519 public key in PEM form.');
    }
  }
  if (looksLikeVerifierKey(text)) {
    const key = parseVerifierKey(text);
    if (keyHashOf(key.name, key.key) !== key.keyHash) throw new WarrantError('invalid-key', '--public-key: its key hash does not match the key.');
    return { name: key.name, publicKey: key.key };
  }
  const raw = fromBase64(text);
  if (raw && raw.length === 32) return { name: null, publicKey: raw };
  throw new WarrantError(
    'invalid-key',
    '--public-key: expected the verifier key printed by `warrant settings get checkpoint_key` (<name>+<hash>+<base64>), a base64 Ed25519 public key, or a PEM file.',
  );
}

/**
 * Checks a checkpoint note against a public key the verifier trusts, and returns its claim.
 * Refuses (`checkpoint-signature-invalid`) unless a signature line verifies under that key.
 */
export function verifyCheckpointNote(note: string, key: VerifierKey): CheckpointBody & { keyName: string } {
  const { body, signatures } = parseSignedNote(note);
  const publicKey = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(key.publicKey)]), format: 'der', type: 'spki' });
  let verifiedBy: string | null = null;
  for (const s of signatures) {
    // C2SP signed-note: signatures of unknown keys are ignored; one of the known key that fails rejects the note
    if (key.name !== null && s.name !== key.name) continue;
    if (s.keyHash !== keyHashOf(s.name, key.publicKey)) continue;
    if (s.signature.length === 64 && verify(null, Buffer.from(body, 'utf8'), publicKey, Buffer.from(s.signature))) verifiedBy ??= s.name;
    else if (key.name !== null) {
      verifiedBy = null;
      break;
    }
  }
  if (verifiedBy !== null) return { ...parseAnyCheckpointBody(body), keyName: verifiedBy };
  throw new WarrantError(
    'checkpoint-signature-invalid',
    'No signature on the checkpoint verifies under the given public key: the checkpoint was not signed by that key, or it was altered.',
  );
}

async function checkpointSigner(ctx: AppContext): Promise<CheckpointSigner | null> {
  const text = await getSetting(ctx.store.kysely, SETTING_CHECKPOINT_KEY);
  return text ? signerFromText(text) : null;
}

type CheckpointWrite =
  | { written: true; checkpoint: CheckpointRecord }
  | { written: false; reason: 'no-key' | 'empty-log' | 'head-already-signed'; checkpoint: CheckpointRecord | null };

/** The log's origin line: the `audit_origin` setting, else the signing key's name. */
async function auditOrigin(ctx: AppContext, signer: CheckpointSigner | null): Promise<string> {
  const set = await getSetting(ctx.store.kysely, SETTING_AUDIT_ORIGIN);
  if (set && isValidOrigin(set)) return set;
  return signer?.name ?? DEFAULT_KEY_NAME;
}

/** The newest signed checkpoint, or null. */
export async function newestCheckpoint(ctx: AppContext): Promise<CheckpointRecord | null> {
  return latestCheckpoint(ctx.store.kysely);
}

/** Signs the current head now (when the log is not empty and the head is not signed yet). */
export async function writeCheckpoint(ctx: AppContext): Promise<CheckpointWrite> {
  const signer = await checkpointSigner(ctx);
  const db = ctx.store.kysely;
  const keyHash = signer ? signer.keyHash.toString(16).padStart(8, '0') : undefined;
  const last = await latestCheckpoint(db, keyHash);
  if (!signer) return { written: false, reason: 'no-key', checkpoint: last };
  const head = await auditHead(db);
  if (!head) return { written: false, reason: 'empty-log', checkpoint: last };
  if (last && last.seq >= head.seq) return { written: false, reason: 'head-already-signed', checkpoint: last };
  // the tree covers the head before it is signed (it grows from the stored frontier)
  await extendTree(db);
  const root = await treeRoot(db, head.seq);
  const origin = await auditOrigin(ctx, signer);
  const note = signTreeHeadNote(signer, { origin, treeSize: head.seq, rootHash: root });
  const record = {
    seq: head.seq,
    hash: head.hash,
    rootHash: Buffer.from(root).toString('hex'),
    signedAt: ctx.clock.now().toISOString(),
    keyName: signer.name,
    keyHash: keyHash!,
    note,
  };
  await insertCheckpoint(db, record);
  return { written: true, checkpoint: (await latestCheckpoint(db, keyHash))! };
}

/** Housekeeping: a checkpoint when a key is set, the log grew, and the interval has passed. */
export async function periodicCheckpoint(ctx: AppContext): Promise<CheckpointWrite | null> {
  const signer = await checkpointSigner(ctx);
  if (!signer) return null;
  const interval = parseDuration((await getSetting(ctx.store.kysely, SETTING_CHECKPOINT_INTERVAL)) ?? DEFAULT_CHECKPOINT_INTERVAL) ?? null;
  if (interval === null) return null;
  const last = await latestCheckpoint(ctx.store.kysely, signer.keyHash.toString(16).padStart(8, '0'));
  if (last && ctx.clock.now().getTime() - Date.parse(last.signedAt) < interval) return null;
  return writeCheckpoint(ctx);
}
