import {
  AUDIT_SCHEMA_VERSION,
  CHAIN_BREAK_DESCRIPTIONS,
  CHAIN_START,
  verifyLinks,
  type ChainBreak,
  type ChainCursor,
  type ChainHasher,
  type ChainLink,
} from '../core/audit-chain.js';
import { WarrantError } from '../core/errors.js';
import { CompactRange, leafHash } from '../core/merkle-tree.js';
import { sha256Bytes } from '../store/audit-tree-repo.js';
import { auditHead, auditPage } from '../store/audit-repo.js';
import type { Executor } from '../store/dialect/dialect.js';
import { nodeChainHasher } from './audit.js';

/**
 * `warrant audit verify` and `warrant audit export` (docs/attribution.md): recompute the chain and name
 * the first broken seq; stream the log as JSON Lines that the same verifier reads back, so an
 * export can be checked by someone who does not trust the database host.
 */

/**
 * A signed checkpoint's claim the log must agree with: entry `seq` has chain hash `hash` (the
 * checkpoints of earlier versions), or the Merkle tree of the first `seq` entries has root
 * `rootHash` (hex; a tlog-checkpoint, docs/audit-log.md).
 */
export type CheckpointExpectation = { seq: number; hash: string; rootHash?: undefined } | { seq: number; rootHash: string; hash?: undefined };

type CheckpointOutcome = 'matched' | 'hash-differs' | 'root-differs' | 'log-ends-before-checkpoint' | 'not-reached-chain-broken';

export interface VerifyReport {
  ok: boolean;
  /** entries that verified (all of them when ok) */
  entries: number;
  /** the last verified link */
  head: { seq: number; hash: string } | null;
  broken: (ChainBreak & { description: string }) | null;
  checkpoints: (CheckpointExpectation & { outcome: CheckpointOutcome })[];
}

const encoder = new TextEncoder();

/** Feeds links in order; remembers the first break and checks checkpoint claims on the way. */
class ChainVerifier {
  private cursor: ChainCursor = CHAIN_START;
  private brokenAt: ChainBreak | null = null;
  private readonly expected = new Map<number, string>();
  private readonly expectedRoots = new Map<number, string>();
  private readonly outcomes = new Map<string, CheckpointOutcome>();
  private readonly checkpoints: readonly CheckpointExpectation[];
  /** the Merkle tree of the verified prefix, kept only when a checkpoint claims a root */
  private readonly tree: CompactRange | null;

  constructor(
    private readonly hasher: ChainHasher = nodeChainHasher,
    checkpoints: readonly CheckpointExpectation[] = [],
  ) {
    this.checkpoints = checkpoints;
    for (const c of checkpoints) {
      if (c.rootHash !== undefined) this.expectedRoots.set(c.seq, c.rootHash);
      else this.expected.set(c.seq, c.hash);
    }
    this.tree = this.expectedRoots.size > 0 ? new CompactRange(sha256Bytes) : null;
  }

  get verified(): number {
    return this.cursor.nextSeq - 1;
  }

  /** Returns false once the chain is broken (nothing after a break can be trusted). */
  feed(links: readonly ChainLink[]): boolean {
    if (this.brokenAt) return false;
    const r = verifyLinks(this.hasher, links, this.cursor);
    const good = r.broken ? links.filter((l) => l.seq < r.broken!.seq) : links;
    for (const l of good) {
      const want = this.expected.get(l.seq);
      if (want !== undefined) this.outcomes.set(`h${l.seq}`, want === l.hash ? 'matched' : 'hash-differs');
      if (this.tree) {
        this.tree.append(leafHash(sha256Bytes, encoder.encode(l.entry)));
        const root = this.expectedRoots.get(l.seq);
        if (root !== undefined) this.outcomes.set(`r${l.seq}`, Buffer.from(this.tree.root()).toString('hex') === root ? 'matched' : 'root-differs');
      }
    }
    this.cursor = r.cursor;
    this.brokenAt = r.broken;
    return r.broken === null;
  }

  report(): VerifyReport {
    const checkpoints = this.checkpoints.map((c) => ({
      ...c,
      outcome:
        this.outcomes.get(`${c.rootHash !== undefined ? 'r' : 'h'}${c.seq}`) ??
        (this.brokenAt && c.seq >= this.brokenAt.seq ? 'not-reached-chain-broken' : 'log-ends-before-checkpoint'),
    }));
    const ok = this.brokenAt === null && checkpoints.every((c) => c.outcome === 'matched');
    return {
      ok,
      entries: this.verified,
      head: this.verified > 0 ? { seq: this.verified, hash: this.cursor.prevHash } : null,
      broken: this.brokenAt ? { ...this.brokenAt, description: CHAIN_BREAK_DESCRIPTIONS[this.brokenAt.reason] } : null,
      checkpoints,
    };
  }
}

interface VerifyOptions {
  checkpoints?: readonly CheckpointExpectation[];
  /** called after each page: entries read so far, and the head seq when the run began */
  onProgress?: (done: number, total: number) => void;
  pageSize?: number;
  hasher?: ChainHasher;
}

/** Recomputes the stored chain page by page (seq order), stopping at the first break. */
export async function verifyStoredChain(db: Executor, options: VerifyOptions = {}): Promise<VerifyReport> {
  const verifier = new ChainVerifier(options.hasher, options.checkpoints);
  const total = (await auditHead(db))?.seq ?? 0;
  const pageSize = options.pageSize ?? 10_000;
  let read = 0;
  // the next page is requested before this one is hashed: a database server reads while we hash
  let next = auditPage(db, 0, pageSize);
  for (;;) {
    const page = await next;
    if (page.length === 0) break;
    next = page.length < pageSize ? Promise.resolve([]) : auditPage(db, page[page.length - 1]!.seq, pageSize);
    read += page.length;
    const intact = verifier.feed(page);
    options.onProgress?.(read, total);
    if (!intact) {
      await next.catch(() => {});
      break;
    }
  }
  return verifier.report();
}

/** One exported line: the stored row, with the canonical entry text verbatim. */
function exportLine(link: ChainLink): string {
  return JSON.stringify({ schema_version: AUDIT_SCHEMA_VERSION, seq: link.seq, entry: link.entry, prev_hash: link.prevHash, hash: link.hash });
}

/** Streams the log as JSON Lines (docs/attribution.md: `schema_version: 1`, additive keys). */
export async function* exportAuditLines(
  db: Executor,
  options: { afterSeq?: number; pageSize?: number; onProgress?: (done: number, total: number) => void } = {},
): AsyncGenerator<string> {
  let after = options.afterSeq ?? 0;
  const total = Math.max(0, ((await auditHead(db))?.seq ?? 0) - after);
  let done = 0;
  for (;;) {
    const page = await auditPage(db, after, options.pageSize ?? 5_000);
    if (page.length === 0) return;
    for (const link of page) yield exportLine(link);
    done += page.length;
    options.onProgress?.(done, total);
    after = page[page.length - 1]!.seq;
  }
}

/**
 * Parses one exported line. Readers ignore unknown keys (docs/attribution.md); a line whose schema
 * version is newer than this reader understands is refused rather than misread.
 */
function parseExportLine(text: string, lineNumber: number): ChainLink {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new WarrantError('invalid-export', `line ${lineNumber}: not JSON; expected one exported audit entry per line.`);
  }
  const v = value as Record<string, unknown>;
  if (typeof v !== 'object' || v === null) throw new WarrantError('invalid-export', `line ${lineNumber}: not a JSON object.`);
  if (typeof v.schema_version !== 'number' || v.schema_version > AUDIT_SCHEMA_VERSION) {
    throw new WarrantError(
      'invalid-export',
      `line ${lineNumber}: schema_version ${JSON.stringify(v.schema_version)} is not one this version of warrant reads (≤ ${AUDIT_SCHEMA_VERSION}).`,
    );
  }
  if (!Number.isSafeInteger(v.seq) || typeof v.entry !== 'string' || typeof v.prev_hash !== 'string' || typeof v.hash !== 'string') {
    throw new WarrantError('invalid-export', `line ${lineNumber}: needs seq (integer), entry, prev_hash and hash (strings).`);
  }
  return { seq: v.seq as number, entry: v.entry, prevHash: v.prev_hash, hash: v.hash };
}

/** Verifies an exported log read line by line (blank lines are ignored). */
export async function verifyExportLines(lines: AsyncIterable<string>, options: Omit<VerifyOptions, 'pageSize'> = {}): Promise<VerifyReport> {
  const verifier = new ChainVerifier(options.hasher, options.checkpoints);
  let batch: ChainLink[] = [];
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    batch.push(parseExportLine(line, n));
    if (batch.length >= 5_000) {
      const intact = verifier.feed(batch);
      options.onProgress?.(verifier.verified, 0);
      batch = [];
      if (!intact) return verifier.report();
    }
  }
  verifier.feed(batch);
  options.onProgress?.(verifier.verified, 0);
  return verifier.report();
}
