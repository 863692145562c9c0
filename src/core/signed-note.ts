import { WarrantError, type KnownErrorToken } from './errors.js';

/**
 * docs/attribution.md: audit checkpoints are "signed notes" — the text format of Go's
 * golang.org/x/mod/sumdb/note, so standard tooling can check them: a UTF-8 body ending in a
 * newline, a blank line, then one line per signature: `— <name> <base64(key hash ‖ signature)>`.
 * The key hash is the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ Ed25519 public key).
 * Keys are written `<name>+<hash hex>+<base64(0x01 ‖ key)>` (verifier) and
 * `PRIVATE+KEY+<name>+<hash hex>+<base64(0x01 ‖ seed)>` (signer). Pure: crypto is the caller's.
 */
const ED25519_ALGORITHM = 1;

interface NoteSignature {
  name: string;
  /** the 4-byte key hash as an unsigned integer */
  keyHash: number;
  signature: Uint8Array;
}

interface NoteKey {
  name: string;
  keyHash: number;
  /** 32 bytes: the public key (verifier) or the private seed (signer) */
  key: Uint8Array;
}

/** A checkpoint's claim: the log had `seq` entries ending in `hash` at `time` (docs/attribution.md). */
export interface CheckpointClaim {
  seq: number;
  hash: string;
  time: string;
}

const CHECKPOINT_HEADER = 'warrant audit checkpoint v1';
const EM_DASH = '\u2014';

function refuse(token: KnownErrorToken, message: string): WarrantError {
  return new WarrantError(token, message);
}

export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

export function fromBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** Key names: printable, no spaces and no '+' (the note format's rule). */
export function isValidKeyName(name: string): boolean {
  return /^[\x21-\x2a\x2c-\x7e]{1,64}$/.test(name);
}

/** The bytes whose SHA-256 gives the key hash: name ‖ "\n" ‖ 0x01 ‖ public key. */
export function keyHashInput(name: string, publicKey: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(`${name}\n`);
  const out = new Uint8Array(head.length + 1 + publicKey.length);
  out.set(head, 0);
  out[head.length] = ED25519_ALGORITHM;
  out.set(publicKey, head.length + 1);
  return out;
}

export function keyHashFromDigest(sha256Hex: string): number {
  return parseInt(sha256Hex.slice(0, 8), 16) >>> 0;
}

const hex8 = (n: number) => n.toString(16).padStart(8, '0');

function encodeKey(key: NoteKey): string {
  const body = new Uint8Array(1 + key.key.length);
  body[0] = ED25519_ALGORITHM;
  body.set(key.key, 1);
  return `${key.name}+${hex8(key.keyHash)}+${toBase64(body)}`;
}

function decodeKey(text: string, what: string): NoteKey {
  // the base64 part may itself contain '+': split at the first two only
  const m = /^([^+]*)\+([^+]*)\+(.*)$/s.exec(text);
  if (!m) throw refuse('invalid-key', `${what}: expected <name>+<8 hex digits>+<base64 key>.`);
  const [, name, hash, b64] = m as unknown as [string, string, string, string];
  if (!isValidKeyName(name)) throw refuse('invalid-key', `${what}: the key name must be 1–64 printable characters without spaces or '+'.`);
  if (!/^[0-9a-f]{8}$/.test(hash)) throw refuse('invalid-key', `${what}: the key hash must be 8 lowercase hex digits.`);
  const bytes = fromBase64(b64);
  if (!bytes || bytes.length !== 33 || bytes[0] !== ED25519_ALGORITHM)
    throw refuse('invalid-key', `${what}: not an Ed25519 key (expected base64 of 0x01 followed by 32 bytes).`);
  return { name, keyHash: parseInt(hash, 16) >>> 0, key: bytes.slice(1) };
}

export function formatVerifierKey(key: NoteKey): string {
  return encodeKey(key);
}

/** Whether text has the shape of a verifier key (name, hash and key joined by '+'). */
export function looksLikeVerifierKey(text: string): boolean {
  return /^[^+\s]+\+[0-9a-f]{8}\+[A-Za-z0-9+/=]+$/.test(text.trim());
}

export function parseVerifierKey(text: string): NoteKey {
  return decodeKey(text.trim(), 'public key');
}

export function formatSignerKey(key: NoteKey): string {
  return `PRIVATE+KEY+${encodeKey(key)}`;
}

export function parseSignerKey(text: string): NoteKey {
  const t = text.trim();
  if (!t.startsWith('PRIVATE+KEY+')) throw refuse('invalid-key', 'checkpoint key: expected a signer key PRIVATE+KEY+<name>+<hash>+<base64>, or "generate".');
  return decodeKey(t.slice('PRIVATE+KEY+'.length), 'checkpoint key');
}

export function formatCheckpointBody(claim: CheckpointClaim): string {
  return `${CHECKPOINT_HEADER}\nseq ${claim.seq}\nhash ${claim.hash}\ntime ${claim.time}\n`;
}

function parseCheckpointBody(body: string): CheckpointClaim {
  const m = /^warrant audit checkpoint v1\nseq (\d{1,15})\nhash ([0-9a-f]{64})\ntime (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\n/.exec(body);
  if (!m)
    throw refuse(
      'invalid-checkpoint',
      'The note is not a Warrant audit checkpoint (expected the "warrant audit checkpoint v1" body with seq, hash and time lines).',
    );
  return { seq: Number(m[1]), hash: m[2]!, time: m[3]! };
}

/**
 * docs/audit-log.md: a C2SP `tlog-checkpoint` body — the log's origin, its tree size and the
 * base64 RFC 9162 root hash, each on its own line. Warrant writes no extension lines.
 */
export interface TreeHead {
  origin: string;
  treeSize: number;
  rootHash: Uint8Array;
}

/** An origin (the log's name): a key name's rules, so the signature line can carry it too. */
export function isValidOrigin(origin: string): boolean {
  return /^[\x21-\x2a\x2c-\x7e]{1,128}$/.test(origin);
}

export function formatTreeHeadBody(head: TreeHead): string {
  if (!isValidOrigin(head.origin)) throw refuse('invalid-origin', 'The log origin must be 1–128 printable characters without spaces or "+".');
  if (head.rootHash.length !== 32) throw refuse('invalid-checkpoint', 'A root hash is 32 bytes.');
  return `${head.origin}\n${head.treeSize}\n${toBase64(head.rootHash)}\n`;
}

/** Parses a `tlog-checkpoint` body, or returns null when the text is not one. */
export function parseTreeHeadBody(body: string): TreeHead | null {
  const m = /^([^\n]+)\n(0|[1-9]\d{0,15})\n([A-Za-z0-9+/]{43}=)\n((?:[^\n]+\n)*)$/.exec(body);
  if (!m || !isValidOrigin(m[1]!)) return null;
  const treeSize = Number(m[2]);
  const rootHash = fromBase64(m[3]!);
  if (!Number.isSafeInteger(treeSize) || !rootHash || rootHash.length !== 32) return null;
  return { origin: m[1]!, treeSize, rootHash };
}

/** A checkpoint as read: the tree head Warrant signs now, or the chain-head body of earlier versions. */
export type CheckpointBody = ({ format: 'tlog-checkpoint' } & TreeHead) | ({ format: 'legacy-v1' } & CheckpointClaim);

export function parseAnyCheckpointBody(body: string): CheckpointBody {
  if (body.startsWith(`${CHECKPOINT_HEADER}\n`)) return { format: 'legacy-v1', ...parseCheckpointBody(body) };
  const head = parseTreeHeadBody(body);
  if (head) return { format: 'tlog-checkpoint', ...head };
  throw refuse('invalid-checkpoint', 'The note is not an audit checkpoint (expected an origin line, the tree size and the base64 root hash).');
}

export function formatSignedNote(body: string, signatures: readonly NoteSignature[]): string {
  const lines = signatures.map((s) => {
    const blob = new Uint8Array(4 + s.signature.length);
    new DataView(blob.buffer).setUint32(0, s.keyHash);
    blob.set(s.signature, 4);
    return `${EM_DASH} ${s.name} ${toBase64(blob)}\n`;
  });
  return `${body}\n${lines.join('')}`;
}

/** Splits a signed note into its signed body and its signature lines. */
export function parseSignedNote(text: string): { body: string; signatures: NoteSignature[] } {
  const normalized = text.replace(/\r\n/g, '\n');
  // a signed note holds no control characters but newline (C2SP signed-note)
  if (/[\x00-\x09\x0b-\x1f]/.test(normalized))
    throw refuse('invalid-checkpoint', 'The note contains a control character; a signed note holds none but newlines.');
  const split = normalized.lastIndexOf('\n\n');
  if (split < 0) throw refuse('invalid-checkpoint', 'The note has no signature block (a blank line followed by "— name signature" lines).');
  const body = normalized.slice(0, split + 1);
  const signatures: NoteSignature[] = [];
  for (const line of normalized.slice(split + 2).split('\n')) {
    if (line === '') continue;
    const m = new RegExp(`^${EM_DASH} (\\S+) ([A-Za-z0-9+/=]+)$`).exec(line);
    const blob = m ? fromBase64(m[2]!) : null;
    if (!m || !blob || blob.length < 5) throw refuse('invalid-checkpoint', `The note has a malformed signature line: ${JSON.stringify(line.slice(0, 80))}.`);
    signatures.push({ name: m[1]!, keyHash: new DataView(blob.buffer, blob.byteOffset).getUint32(0), signature: blob.slice(4) });
  }
  if (signatures.length === 0) throw refuse('invalid-checkpoint', 'The note carries no signature.');
  return { body, signatures };
}
