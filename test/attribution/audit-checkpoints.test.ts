import { mkdtempSync, writeFileSync } from 'node:fs';
import { createPublicKey } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { nodeChainHasher } from '../../src/app/audit.js';
import { verifyStoredChain } from '../../src/app/audit-verify.js';
import { systemCaller } from '../../src/app/caller.js';
import { randomIds } from '../../src/app/context.js';
import {
  generateSignerKey,
  parsePublicKeyInput,
  periodicCheckpoint,
  signCheckpointNote,
  signTreeHeadNote,
  signerFromText,
  verifyCheckpointNote,
  writeCheckpoint,
} from '../../src/app/checkpoints.js';
import { changeSetting } from '../../src/app/settings.js';
import { parseSignedNote, parseTreeHeadBody } from '../../src/core/signed-note.js';
import { auditHead, auditPage } from '../../src/store/audit-repo.js';
import { describeEachDialect, ManualClock } from '../helpers/harness.js';

/** docs/design/attribution.md: optional Ed25519 checkpoints as signed notes, verifiable without trusting the database host. */
describe('signed notes', () => {
  it('match the note format of golang.org/x/mod/sumdb/note (its documented example key and signature)', () => {
    const signer = signerFromText('PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz');
    expect(signer.verifierKey).toBe('PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW');
    const note =
      "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
    const parsed = parseSignedNote(note);
    expect(parsed.signatures).toHaveLength(1);
    expect(parsed.signatures[0]!.keyHash.toString(16)).toBe('c74f20a3');
  });

  it('a checkpoint of an earlier version (the chain-head body) still verifies, reported as legacy-v1, and not under another key or after any edit', () => {
    const signer = signerFromText(generateSignerKey(randomIds, 'ops-key'));
    const claim = { seq: 42, hash: 'ab'.repeat(32), time: '2026-11-29T12:00:00.000Z' };
    const note = signCheckpointNote(signer, claim);
    expect(note.startsWith('warrant audit checkpoint v1\nseq 42\nhash ' + 'ab'.repeat(32) + '\ntime 2026-11-29T12:00:00.000Z\n\n— ops-key ')).toBe(true);
    expect(verifyCheckpointNote(note, parsePublicKeyInput(signer.verifierKey))).toEqual({ format: 'legacy-v1', ...claim, keyName: 'ops-key' });
    // raw base64 and PEM (inline and as a file)
    expect(verifyCheckpointNote(note, parsePublicKeyInput(Buffer.from(signer.publicKey).toString('base64')))).toMatchObject({ seq: 42 });
    const pem = createPublicKey(signer.privateKey).export({ format: 'pem', type: 'spki' }).toString();
    const dir = mkdtempSync(join(tmpdir(), 'warrant-key-'));
    writeFileSync(join(dir, 'key.pem'), pem);
    expect(verifyCheckpointNote(note, parsePublicKeyInput(join(dir, 'key.pem')))).toMatchObject({ seq: 42 });

    const other = signerFromText(generateSignerKey(randomIds, 'ops-key'));
    expect(() => verifyCheckpointNote(note, parsePublicKeyInput(other.verifierKey))).toThrow(
      expect.objectContaining({ token: 'checkpoint-signature-invalid' }),
    );
    expect(() => verifyCheckpointNote(note.replace('seq 42', 'seq 43'), parsePublicKeyInput(signer.verifierKey))).toThrow(
      expect.objectContaining({ token: 'checkpoint-signature-invalid' }),
    );
    expect(() => verifyCheckpointNote('no signatures here\n', parsePublicKeyInput(signer.verifierKey))).toThrow(
      expect.objectContaining({ token: 'invalid-checkpoint' }),
    );
    expect(() => parsePublicKeyInput('not a key')).toThrow(expect.objectContaining({ token: 'invalid-key' }));
    expect(() => signerFromText('PRIVATE+KEY+ops-key+00000000+' + signer.verifierKey.split('+').slice(2).join('+'))).toThrow(
      expect.objectContaining({ token: 'invalid-key' }),
    );
  });
});

describe('tree checkpoints (C2SP tlog-checkpoint)', () => {
  it('round-trip through the parser; a second, failing signature by the trusted key rejects the note; other keys are ignored', () => {
    const signer = signerFromText(generateSignerKey(randomIds, 'acme.example/log'));
    const other = signerFromText(generateSignerKey(randomIds, 'witness.example'));
    const head = { origin: 'acme.example/log', treeSize: 20852163, rootHash: new Uint8Array(32).fill(9) };
    const note = signTreeHeadNote(signer, head);
    expect(note.split('\n').slice(0, 4)).toEqual(['acme.example/log', '20852163', Buffer.from(head.rootHash).toString('base64'), '']);
    const key = parsePublicKeyInput(signer.verifierKey);
    expect(verifyCheckpointNote(note, key)).toEqual({ format: 'tlog-checkpoint', ...head, keyName: 'acme.example/log' });
    const line = note.split('\n')[4]!;
    const cosigned = note + signTreeHeadNote(other, head).split('\n')[4] + '\n';
    expect(verifyCheckpointNote(cosigned, key)).toMatchObject({ treeSize: 20852163 });
    const broken = line.slice(0, -6) + (line.slice(-6, -5) === 'A' ? 'B' : 'A') + line.slice(-5);
    expect(() => verifyCheckpointNote(note + broken + '\n', key)).toThrow(expect.objectContaining({ token: 'checkpoint-signature-invalid' }));
    expect(() => verifyCheckpointNote(note.replace('20852163', '20852164'), key)).toThrow(expect.objectContaining({ token: 'checkpoint-signature-invalid' }));
    expect(parseTreeHeadBody('acme\n012\n' + Buffer.alloc(32).toString('base64') + '\n')).toBeNull();
  });
});

const clock = new ManualClock();

describeEachDialect(
  'audit checkpoints in the store',
  (t) => {
    it('are signed on demand and by housekeeping when the log grew and the interval passed; the stored chain agrees with them', async () => {
      const h = t();
      const admin = systemCaller('cli');
      expect(await writeCheckpoint(h.ctx)).toMatchObject({ written: false, reason: 'no-key' });
      expect(await periodicCheckpoint(h.ctx)).toBeNull();

      const view = await changeSetting(h.ctx, admin, 'checkpoint_key', 'generate:test-log');
      expect(view.value).toMatch(/^test-log\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/);
      const key = parsePublicKeyInput(view.value!);

      await h.create(h.fleetKey, { title: 'before the checkpoint' });
      const first = await writeCheckpoint(h.ctx);
      expect(first.written).toBe(true);
      const head = (await auditHead(h.store.kysely))!;
      expect(first.checkpoint).toMatchObject({ seq: head.seq, hash: head.hash, keyName: 'test-log', signedAt: clock.now().toISOString() });
      // a C2SP tlog-checkpoint: the origin (the key's name while audit_origin is unset), the tree size, the base64 root
      expect(first.checkpoint!.note).toMatch(new RegExp(`^test-log\n${head.seq}\n[A-Za-z0-9+/]{43}=\n\n— test-log `));
      expect(verifyCheckpointNote(first.checkpoint!.note, key)).toMatchObject({ format: 'tlog-checkpoint', origin: 'test-log', treeSize: head.seq });
      expect(first.checkpoint!.rootHash).toMatch(/^[0-9a-f]{64}$/);
      expect(await writeCheckpoint(h.ctx)).toMatchObject({ written: false, reason: 'head-already-signed' });

      // housekeeping: the log grows, but the interval (default 1h) has not passed
      await h.create(h.fleetKey, { title: 'after' });
      expect(await periodicCheckpoint(h.ctx)).toBeNull();
      clock.advance(61 * 60_000);
      const second = await periodicCheckpoint(h.ctx);
      expect(second).toMatchObject({ written: true, checkpoint: { seq: (await auditHead(h.store.kysely))!.seq } });
      // the interval passed again but nothing was appended: nothing new to sign
      clock.advance(61 * 60_000);
      expect(await periodicCheckpoint(h.ctx)).toMatchObject({ written: false, reason: 'head-already-signed' });

      const cps = [first.checkpoint!, second!.checkpoint!];
      const report = await verifyStoredChain(h.store.kysely, {
        checkpoints: [...cps.map((c) => ({ seq: c.seq, hash: c.hash })), ...cps.map((c) => ({ seq: c.seq, rootHash: c.rootHash! }))],
      });
      expect(report.ok).toBe(true);
      expect(report.checkpoints.map((c) => c.outcome)).toEqual(['matched', 'matched', 'matched', 'matched']);
      // checkpoints are immutable like the log
      await expect(
        h.store.kysely
          .updateTable('audit_checkpoints')
          .set({ hash: '0'.repeat(64) })
          .execute(),
      ).rejects.toThrow(/immutable/);
    });

    it('catch a log rewritten consistently after the checkpoint, and a truncated one, which the chain alone cannot', async () => {
      const h = t();
      await changeSetting(h.ctx, systemCaller('cli'), 'checkpoint_key', 'generate');
      for (let i = 0; i < 3; i++) await h.create(h.fleetKey, { title: `s${i}` });
      const cp = (await writeCheckpoint(h.ctx)).checkpoint!;
      const expectation = [{ seq: cp.seq, hash: cp.hash }];
      const rootExpectation = [{ seq: cp.seq, rootHash: cp.rootHash! }];
      const db = h.store.kysely;
      for (const stmt of h.store.dropImmutableTriggersSql('audit_log')) await sql.raw(stmt).execute(db);

      // someone with the database rewrites entry 2 and re-chains everything after it
      const rows = await auditPage(db, 0, 1_000_000);
      let prev = rows[0]!.hash;
      for (const row of rows.slice(1)) {
        const entry = row.seq === 2 ? row.entry.replace(/"at":"[^"]+"/, '"at":"1999-01-01T00:00:00.000Z"') : row.entry;
        const hash = nodeChainHasher(prev, entry);
        await db.updateTable('audit_log').set({ entry, prev_hash: prev, hash }).where('seq', '=', row.seq).execute();
        prev = hash;
      }
      const rewritten = await verifyStoredChain(db, { checkpoints: expectation });
      expect(rewritten.broken).toBeNull();
      expect(rewritten.ok).toBe(false);
      expect(rewritten.checkpoints).toEqual([{ seq: cp.seq, hash: cp.hash, outcome: 'hash-differs' }]);
      // the tree checkpoint catches it too: the Merkle root over the rewritten entries differs
      expect((await verifyStoredChain(db, { checkpoints: rootExpectation })).checkpoints).toEqual([
        { seq: cp.seq, rootHash: cp.rootHash, outcome: 'root-differs' },
      ]);

      // truncation: the newest entries removed
      await db
        .deleteFrom('audit_log')
        .where('seq', '>=', cp.seq - 1)
        .execute();
      const truncated = await verifyStoredChain(db, { checkpoints: expectation });
      expect(truncated.broken).toBeNull();
      expect(truncated.checkpoints[0]!.outcome).toBe('log-ends-before-checkpoint');
    });
  },
  { clock },
);
