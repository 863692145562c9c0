/**
 * docs/audit-log.md "Merkle tree and proofs": the audit log's entries are the leaves of an
 * RFC 9162 (RFC 6962) Merkle tree. Leaf i is entry seq i+1, its bytes the entry's canonical
 * text (UTF-8) — the very bytes the hash chain hashes:
 *
 *   leaf hash = SHA-256(0x00 ‖ entry)        node hash = SHA-256(0x01 ‖ left ‖ right)
 *
 * Pure: SHA-256 is passed in. Indices and sizes are plain numbers (safe integers), so the
 * arithmetic avoids 32-bit bit operators.
 */
export type Sha256Bytes = (data: Uint8Array) => Uint8Array;

/** A range of leaves [start, end). */
export interface Span {
  start: number;
  end: number;
}

/** A perfect subtree: 2^level leaves starting at leaf index·2^level. */
export interface NodeRef {
  level: number;
  index: number;
}

export function leafHash(sha: Sha256Bytes, leaf: Uint8Array): Uint8Array {
  const buf = new Uint8Array(leaf.length + 1);
  buf[0] = 0x00;
  buf.set(leaf, 1);
  return sha(buf);
}

function nodeHash(sha: Sha256Bytes, left: Uint8Array, right: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + left.length + right.length);
  buf[0] = 0x01;
  buf.set(left, 1);
  buf.set(right, 1 + left.length);
  return sha(buf);
}

/** The largest power of two strictly below n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

const isPowerOfTwo = (n: number) => n > 0 && 2 ** Math.round(Math.log2(n)) === n;
const odd = (n: number) => n % 2 === 1;
const half = (n: number) => Math.floor(n / 2);

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

/**
 * The reference MTH over leaf hashes, straight from the RFC's recursion (tests and small trees).
 * @example merkleRoot(sha, [leafHash(sha, bytes('a'))])
 */
export function merkleRoot(sha: Sha256Bytes, leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha(new Uint8Array(0));
  if (leaves.length === 1) return leaves[0]!;
  const k = splitPoint(leaves.length);
  return nodeHash(sha, merkleRoot(sha, leaves.slice(0, k)), merkleRoot(sha, leaves.slice(k)));
}

/**
 * The spans whose subtree hashes form the inclusion proof of leaf `index` in a tree of `size`
 * leaves (RFC 9162 §2.1.3.1 PATH), lowest first.
 * @example inclusionSpans(0, 3) // [{start:1,end:2},{start:2,end:3}]
 */
export function inclusionSpans(index: number, size: number): Span[] {
  if (!(index >= 0 && index < size)) throw new RangeError(`leaf ${index} is outside a tree of ${size}`);
  const out: Span[] = [];
  const walk = (m: number, start: number, n: number) => {
    if (n === 1) return;
    const k = splitPoint(n);
    if (m < k) {
      walk(m, start, k);
      out.push({ start: start + k, end: start + n });
    } else {
      walk(m - k, start + k, n - k);
      out.push({ start, end: start + k });
    }
  };
  walk(index, 0, size);
  return out;
}

/**
 * The spans whose subtree hashes form the consistency proof from a tree of `size1` leaves to
 * one of `size2` (RFC 9162 §2.1.4.1 SUBPROOF), in proof order. Empty when the sizes are equal.
 * @example consistencySpans(3, 4) // [{start:2,end:3},{start:3,end:4},{start:0,end:2}]
 */
export function consistencySpans(size1: number, size2: number): Span[] {
  if (!(size1 >= 1 && size1 <= size2)) throw new RangeError(`no consistency proof from ${size1} to ${size2}`);
  const out: Span[] = [];
  const walk = (m: number, start: number, n: number, complete: boolean) => {
    if (m === n) {
      if (!complete) out.push({ start, end: start + n });
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      walk(m, start, k, complete);
      out.push({ start: start + k, end: start + n });
    } else {
      walk(m - k, start + k, n - k, false);
      out.push({ start, end: start + k });
    }
  };
  walk(size1, 0, size2, true);
  return out;
}

/**
 * The perfect subtrees a span is made of, largest first; the span's hash is their right fold
 * (`spanHash`). Proof spans always start at a multiple of their largest part, so this holds.
 */
export function spanNodes(span: Span): NodeRef[] {
  const out: NodeRef[] = [];
  let start = span.start;
  let left = span.end - span.start;
  while (left > 0) {
    const size = isPowerOfTwo(left) ? left : splitPoint(left);
    const level = Math.round(Math.log2(size));
    if (start % size !== 0) throw new RangeError(`span [${span.start}, ${span.end}) is not aligned`);
    out.push({ level, index: start / size });
    start += size;
    left -= size;
  }
  return out;
}

/** A span's hash from its perfect parts (largest first): H(p1, H(p2, … pk)). */
export function spanHash(sha: Sha256Bytes, parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 0) return sha(new Uint8Array(0));
  let r = parts[parts.length - 1]!;
  for (let i = parts.length - 2; i >= 0; i--) r = nodeHash(sha, parts[i]!, r);
  return r;
}

/**
 * RFC 9162 §2.1.3.2: whether `proof` proves the leaf with hash `leaf` is leaf `index` of the
 * tree of `size` leaves whose root is `root`.
 */
export function verifyInclusion(sha: Sha256Bytes, index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = nodeHash(sha, p, r);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = nodeHash(sha, r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && bytesEqual(r, root);
}

/**
 * RFC 9162 §2.1.4.2: whether `proof` proves the tree of `size2` leaves with root `root2`
 * extends the tree of `size1` leaves with root `root1` (equal sizes: an empty proof, equal roots).
 */
export function verifyConsistency(sha: Sha256Bytes, size1: number, size2: number, proof: readonly Uint8Array[], root1: Uint8Array, root2: Uint8Array): boolean {
  if (!(Number.isSafeInteger(size1) && Number.isSafeInteger(size2) && size1 >= 1 && size1 <= size2)) return false;
  if (size1 === size2) return proof.length === 0 && bytesEqual(root1, root2);
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : [...proof];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(sha, c, fr);
      sr = nodeHash(sha, c, sr);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = nodeHash(sha, sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && bytesEqual(fr, root1) && bytesEqual(sr, root2);
}

export interface StoredNode extends NodeRef {
  hash: Uint8Array;
}

/**
 * The right edge of a growing tree: the perfect subtrees of [0, size), largest first. Appending
 * a leaf returns every perfect subtree it completes (the leaf itself first), which is what a
 * store of subtree hashes keeps so proofs need no rehashing of the log.
 */
export class CompactRange {
  private readonly stack: StoredNode[];
  private count: number;

  constructor(
    private readonly sha: Sha256Bytes,
    size = 0,
    frontier: readonly Uint8Array[] = [],
  ) {
    const refs = size === 0 ? [] : spanNodes({ start: 0, end: size });
    if (refs.length !== frontier.length) throw new RangeError(`a tree of ${size} leaves has ${refs.length} frontier nodes, not ${frontier.length}`);
    this.stack = refs.map((r, i) => ({ ...r, hash: frontier[i]! }));
    this.count = size;
  }

  get size(): number {
    return this.count;
  }

  append(leaf: Uint8Array): StoredNode[] {
    let node: StoredNode = { level: 0, index: this.count, hash: leaf };
    const made = [node];
    while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.level === node.level) {
      const left = this.stack.pop()!;
      node = { level: node.level + 1, index: left.index / 2, hash: nodeHash(this.sha, left.hash, node.hash) };
      made.push(node);
    }
    this.stack.push(node);
    this.count++;
    return made;
  }

  root(): Uint8Array {
    return spanHash(
      this.sha,
      this.stack.map((n) => n.hash),
    );
  }
}
