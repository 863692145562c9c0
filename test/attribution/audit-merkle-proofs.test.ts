import { createPublicKey } from 'node:crypto';
import { verifyTLogInclusion } from '@sigstore/verify/dist/tlog/index.js';
import { expect, it } from 'vitest';
import { appendAuditEntries } from '../../src/app/audit.js';
import { verifyProofOffline } from '../../src/app/audit-proof-verify.js';
import { auditConsistencyProof, auditInclusionProof, type InclusionProof } from '../../src/app/audit-tree.js';
import { systemCaller } from '../../src/app/caller.js';
import { randomIds } from '../../src/app/context.js';
import { generateSignerKey, parsePublicKeyInput, signerFromText, signTreeHeadNote, writeCheckpoint, type CheckpointSigner } from '../../src/app/checkpoints.js';
import { changeSetting } from '../../src/app/settings.js';
import { auditHead } from '../../src/store/audit-repo.js';
import { describeEachDialect, type Harness } from '../helpers/harness.js';

/**
 * docs/audit-log.md "Merkle tree and proofs", checked by Warrant's verifier and by one the
 * project did not write: @sigstore/verify's RFC 6962 inclusion proof and signed-note checkpoint
 * verification (the code npm runs for package provenance). It takes a Rekor log entry; the
 * adapter below only fills that shape: the leaf is the entry's canonical bytes, the log's
 * trusted key is the checkpoint key, its log ID starts with the C2SP key ID, and its base URL
 * holds the key name (sigstore matches the signature line's name against it).
 */
const b64 = (s: string) => Buffer.from(s, 'base64');

function sigstoreAuthority(signer: CheckpointSigner) {
  const keyId = Buffer.alloc(4);
  keyId.writeUInt32BE(signer.keyHash);
  const publicKey = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(signer.publicKey)]),
    format: 'der',
    type: 'spki',
  });
  return {
    logID: Buffer.concat([keyId, Buffer.alloc(28)]),
    baseURL: `https://${signer.name}`,
    publicKey,
    validFor: { start: new Date(0), end: new Date(8.64e15) },
  };
}

/** sigstore's check that the leaf with these bytes is leaf `index` of the tree the note signs, by this path. */
function sigstoreInclusion(signer: CheckpointSigner, note: string, leaf: string, index: number, treeSize: number, hashes: readonly Buffer[]): boolean {
  const entry = {
    logIndex: String(index),
    logId: { keyId: Buffer.alloc(32) },
    kindVersion: { kind: 'warrant-audit', version: '1' },
    integratedTime: '0',
    inclusionPromise: undefined,
    inclusionProof: { logIndex: String(index), rootHash: Buffer.alloc(32), treeSize: String(treeSize), hashes: [...hashes], checkpoint: { envelope: note } },
    canonicalizedBody: Buffer.from(leaf, 'utf8'),
  };
  try {
    verifyTLogInclusion(entry, [sigstoreAuthority(signer)]);
    return true;
  } catch {
    return false;
  }
}

/**
 * A consistency proof checked with sigstore's inclusion verifier (it has no consistency check of
 * its own). RFC 9162 §2.1.4: after its optional first element (the subtree holding leaf m−1),
 * the proof from m to n is the inclusion path of leaf m−1 in the tree of n above that subtree;
 * its left siblings alone are that path in the tree of m. So leaf m−1 — whose bytes are the
 * entry — verifies in both signed trees by paths made only of the proof's hashes (and the leaf's
 * path inside its aligned subtree, `inBlock`), which is what consistency means.
 */
function sigstoreConsistency(
  signer: CheckpointSigner,
  notes: { from: string; to: string },
  m: number,
  n: number,
  proof: readonly Buffer[],
  lastLeaf: string,
  inBlock: readonly Buffer[],
): boolean {
  let shift = 0;
  while ((m / 2 ** (shift + 1)) % 1 === 0) shift++;
  const rest = 2 ** shift === m ? [...proof] : proof.slice(1);
  const mask = Math.floor((m - 1) / 2 ** shift);
  const inner = (mask ^ Math.floor((n - 1) / 2 ** shift)).toString(2).replace(/^0+/, '').length;
  const leftSiblings = rest.slice(0, inner).filter((_, i) => Math.floor(mask / 2 ** i) % 2 === 1);
  return (
    sigstoreInclusion(signer, notes.from, lastLeaf, m - 1, m, [...inBlock, ...leftSiblings, ...rest.slice(inner)]) &&
    sigstoreInclusion(signer, notes.to, lastLeaf, m - 1, n, [...inBlock, ...rest])
  );
}

async function appendEntries(h: Harness, count: number, from: number): Promise<void> {
  // the app's own append (chain lock, canonical JSON, chain hash), in batches inside one transaction
  await h.store.kysely.transaction().execute(async (tx) => {
    for (let i = 0; i < count; i += 1000) {
      const drafts = Array.from({ length: Math.min(1000, count - i) }, (_, j) => ({ kind: 'test_entry', at: '2026-12-01T12:00:00.000Z', n: from + i + j }));
      await appendAuditEntries(tx, h.store, drafts);
    }
  });
}

describeEachDialect('Merkle proofs over a 10,000-entry audit log', (t) => {
  it('every 97th entry and a consistency proof between two checkpoints verify with Warrant and with sigstore; a forged checkpoint or a changed leaf fails both', async () => {
    const h = t();
    const admin = systemCaller('cli');
    await changeSetting(h.ctx, admin, 'checkpoint_key', 'generate:acme.example/warrant');
    const signer = signerFromText(
      (await h.store.kysely.selectFrom('settings').select('value').where('key', '=', 'checkpoint_key').executeTakeFirstOrThrow()).value,
    );
    const key = parsePublicKeyInput(signer.verifierKey);

    const start = (await auditHead(h.store.kysely))!.seq;
    await appendEntries(h, 6001 - start, start);
    const first = (await writeCheckpoint(h.ctx)).checkpoint!;
    await appendEntries(h, 10_000 - first.seq, first.seq);
    const second = (await writeCheckpoint(h.ctx)).checkpoint!;
    expect([first.seq, second.seq]).toEqual([6001, 10_000]);
    expect(second.note.split('\n').slice(0, 2)).toEqual(['acme.example/warrant', '10000']);

    let checked = 0;
    let forgedLeaf: InclusionProof | null = null;
    for (let seq = 97; seq <= 10_000; seq += 97) {
      const p = await auditInclusionProof(h.ctx, admin, { seq, treeSize: 10_000 });
      expect(p.checkpoint?.note).toBe(second.note);
      expect(verifyProofOffline({ kind: 'inclusion', seq, tree_size: p.treeSize, entry: p.entry, hashes: p.hashes }, [second.note], key)).toMatchObject({
        kind: 'inclusion',
        seq,
      });
      expect(sigstoreInclusion(signer, second.note, p.entry, p.leafIndex, p.treeSize, p.hashes.map(b64))).toBe(true);
      forgedLeaf ??= p;
      checked++;
    }
    expect(checked).toBe(103);

    // a changed leaf: the same proof for other entry bytes fails both
    const p = forgedLeaf!;
    const changed = p.entry.replace('"n":', '"n":1');
    expect(changed).not.toBe(p.entry);
    expect(() => verifyProofOffline({ kind: 'inclusion', seq: p.seq, tree_size: p.treeSize, entry: changed, hashes: p.hashes }, [second.note], key)).toThrow(
      expect.objectContaining({ token: 'proof-does-not-verify' }),
    );
    expect(sigstoreInclusion(signer, second.note, changed, p.leafIndex, p.treeSize, p.hashes.map(b64))).toBe(false);

    // forged checkpoints: the real key over a root the log never had, and another key over the true root
    const forgedRoot = signTreeHeadNote(signer, { origin: 'acme.example/warrant', treeSize: 10_000, rootHash: new Uint8Array(32).fill(7) });
    const impostor = signerFromText(generateSignerKey(randomIds, 'acme.example/warrant'));
    const otherKey = signTreeHeadNote(impostor, { origin: 'acme.example/warrant', treeSize: 10_000, rootHash: new Uint8Array(b64(p.rootHash)) });
    const edited = second.note.replace(/^(.*\n10000\n)(.)/, (_, head: string, c: string) => head + (c === 'A' ? 'B' : 'A'));
    for (const forged of [forgedRoot, otherKey, edited]) {
      expect(() => verifyProofOffline({ kind: 'inclusion', seq: p.seq, tree_size: p.treeSize, entry: p.entry, hashes: p.hashes }, [forged], key)).toThrow();
      expect(sigstoreInclusion(signer, forged, p.entry, p.leafIndex, p.treeSize, p.hashes.map(b64))).toBe(false);
    }

    // consistency between the two checkpoints
    const c = await auditConsistencyProof(h.ctx, admin, { from: first.seq, to: second.seq });
    expect([c.fromCheckpoint?.note, c.toCheckpoint?.note]).toEqual([first.note, second.note]);
    const wire = { kind: 'consistency', from: c.from, to: c.to, hashes: c.hashes };
    expect(verifyProofOffline(wire, [first.note, second.note], key)).toMatchObject({ kind: 'consistency', from: 6001, to: 10_000 });
    const last = await auditInclusionProof(h.ctx, admin, { seq: first.seq, treeSize: first.seq });
    const shift = 0; // 6001 is odd: leaf 6000 is its own aligned subtree
    const inBlock = last.hashes.slice(0, shift).map(b64);
    expect(sigstoreConsistency(signer, { from: first.note, to: second.note }, c.from, c.to, c.hashes.map(b64), last.entry, inBlock)).toBe(true);
    for (const forged of [forgedRoot, otherKey]) {
      expect(() => verifyProofOffline(wire, [first.note, forged], key)).toThrow();
      expect(sigstoreConsistency(signer, { from: first.note, to: forged }, c.from, c.to, c.hashes.map(b64), last.entry, inBlock)).toBe(false);
    }
    // a proof between sizes whose older one is even (its last leaf sits in a larger aligned subtree) and a power of two
    for (const m of [6000, 4096]) {
      const cm = await auditConsistencyProof(h.ctx, admin, { from: m, to: 10_000 });
      const lm = await auditInclusionProof(h.ctx, admin, { seq: m, treeSize: m });
      const note = signTreeHeadNote(signer, { origin: 'acme.example/warrant', treeSize: m, rootHash: new Uint8Array(b64(cm.fromRootHash)) });
      let s = 0;
      while ((m / 2 ** (s + 1)) % 1 === 0) s++;
      expect(verifyProofOffline({ kind: 'consistency', from: m, to: 10_000, hashes: cm.hashes }, [note, second.note], key)).toMatchObject({ from: m });
      expect(sigstoreConsistency(signer, { from: note, to: second.note }, m, 10_000, cm.hashes.map(b64), lm.entry, lm.hashes.slice(0, s).map(b64))).toBe(true);
    }
  }, 240_000);

  it('refuses with stable tokens: seq beyond the tree, a tree beyond the log, from after to', async () => {
    const h = t();
    const admin = systemCaller('cli');
    await appendEntries(h, 10, 0);
    const size = (await auditHead(h.store.kysely))!.seq;
    await expect(auditInclusionProof(h.ctx, admin, { seq: 5, treeSize: 4 })).rejects.toMatchObject({ token: 'seq-beyond-tree-size', status: 400 });
    await expect(auditInclusionProof(h.ctx, admin, { seq: 1, treeSize: size + 1 })).rejects.toMatchObject({ token: 'tree-size-beyond-log', status: 409 });
    await expect(auditConsistencyProof(h.ctx, admin, { from: 5, to: 4 })).rejects.toMatchObject({ token: 'consistency-range-invalid', status: 400 });
    await expect(auditInclusionProof(h.ctx, { ...admin, principal: { kind: 'fleet' } } as never, { seq: 1 })).rejects.toMatchObject({ token: 'forbidden' });
    // the default tree: the newest checkpoint that includes seq, else the whole log
    await changeSetting(h.ctx, admin, 'checkpoint_key', 'generate:defaults-log');
    const cp = (await writeCheckpoint(h.ctx)).checkpoint!;
    await appendEntries(h, 3, 100);
    expect((await auditInclusionProof(h.ctx, admin, { seq: 1 })).treeSize).toBe(cp.seq);
    expect((await auditInclusionProof(h.ctx, admin, { seq: cp.seq + 2 })).treeSize).toBe(cp.seq + 3);
    expect((await auditConsistencyProof(h.ctx, admin, { from: 1 })).to).toBe(cp.seq);
  });
});
