import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { isWarrantError } from '../../core/errors.js';
import { renderConsistencyProof, renderInclusionProof } from '../../render/audit-proof-markdown.js';
import { CliExit, EXIT_FAILURE, EXIT_USAGE, printJson, printText } from '../output.js';
import { storeFlags, withStore, type StoreFlags } from '../store-access.js';

/** The log's code, the access check and the wire shapes, loaded by the commands that use them, not by every `warrant` start. */
const auditLog = () => import('../../app/audit-log/index.js');
const kernel = () => import('../../app/kernel.js');
const wireShapes = () => import('../../http/audit-schemas.js');

/**
 * `warrant audit prove` and `warrant audit verify-proof` (docs/audit-log.md "Merkle tree and
 * proofs"): an admin prints a proof from the store; anyone holding it, a checkpoint and the
 * public key checks it offline.
 */
function whole(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new CliExit(EXIT_USAGE, `error: ${flag} must be a positive whole number.`);
  return n;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    throw new CliExit(EXIT_USAGE, `error: cannot read the ${what} ${JSON.stringify(path)}: ${(error as Error).message}`);
  }
}

export function registerAuditProofCommands(audit: Command): void {
  storeFlags(
    audit
      .command('prove')
      .description('print a Merkle proof as JSON: --seq N (inclusion, in --tree-size S) or --from A (consistency, to --to B); defaults: the newest checkpoint')
      .option('--seq <n>', 'the entry an inclusion proof is for')
      .option('--tree-size <n>', 'the tree the inclusion proof is against')
      .option('--from <n>', 'consistency: the older tree size')
      .option('--to <n>', 'consistency: the newer tree size')
      .option('--out <file>', 'write the proof to a file')
      .option('--text', 'print a summary instead of JSON'),
  ).action(async (opts: StoreFlags & { seq?: string; treeSize?: string; from?: string; to?: string; out?: string; text?: boolean }) => {
    const seq = whole(opts.seq, '--seq');
    const from = whole(opts.from, '--from');
    if ((seq === undefined) === (from === undefined))
      throw new CliExit(EXIT_USAGE, 'error: give --seq N (an inclusion proof) or --from A (a consistency proof).');
    await withStore(
      opts,
      async (ctx, admin) => {
        const [{ auditConsistencyProof, auditInclusionProof }, { authorize }, { serializeConsistencyProof, serializeInclusionProof }] = await Promise.all([
          auditLog(),
          kernel(),
          wireShapes(),
        ]);
        await authorize(ctx.store.kysely, ctx, admin, 'admin', null);
        let wire: Record<string, unknown>;
        let text: string;
        if (seq !== undefined) {
          const treeSize = whole(opts.treeSize, '--tree-size');
          const p = await auditInclusionProof(ctx, admin, { seq, ...(treeSize === undefined ? {} : { treeSize }) });
          wire = { kind: 'inclusion', ...serializeInclusionProof(p) };
          text = renderInclusionProof(p);
        } else {
          const to = whole(opts.to, '--to');
          const p = await auditConsistencyProof(ctx, admin, { from: from!, ...(to === undefined ? {} : { to }) });
          wire = { kind: 'consistency', ...serializeConsistencyProof(p) };
          text = renderConsistencyProof(p);
        }
        if (opts.out) {
          writeFileSync(opts.out, JSON.stringify(wire, null, 2) + '\n', 'utf8');
          printText(`${text}\nWritten to ${opts.out}.`);
        } else if (opts.text) printText(text);
        else printJson(wire);
      },
      { mustExist: true },
    );
  });

  audit
    .command('verify-proof')
    .description('check a proof offline against signed checkpoints and the public key (exit 1 when it does not verify; no server or store needed)')
    .requiredOption('--proof <file>', 'the proof (JSON from `warrant audit prove` or the proofs API; "-" for stdin)')
    .requiredOption('--checkpoint <file>', 'a signed checkpoint; a consistency proof takes two (repeat the flag)', (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ])
    .requiredOption('--public-key <key>', "the checkpoint key's public verifier key (or a file holding it)")
    .option('--origin <name>', "the log's origin the checkpoints must name")
    .option('--json', 'print the result as JSON')
    .action(async (opts: { proof: string; checkpoint: string[]; publicKey: string; origin?: string; json?: boolean }) => {
      const { verifyProofOffline, parsePublicKeyInput } = await auditLog();
      let proof: unknown;
      try {
        proof = JSON.parse(readText(opts.proof, 'proof'));
      } catch (error) {
        if (error instanceof CliExit) throw error;
        throw new CliExit(EXIT_FAILURE, `error: invalid-proof: ${JSON.stringify(opts.proof)} is not JSON.`);
      }
      const notes = opts.checkpoint.map((f) => readText(f, 'checkpoint'));
      try {
        const r = verifyProofOffline(proof, notes, parsePublicKeyInput(opts.publicKey), opts.origin === undefined ? {} : { origin: opts.origin });
        if (opts.json) return printJson({ ok: true, ...r });
        if (r.kind === 'inclusion')
          printText(`OK: entry ${r.seq} is in the tree of ${r.treeSize} entries of ${r.origin} signed by ${r.keyName} (root ${r.rootHash}).`);
        else
          printText(
            `OK: the tree of ${r.to} entries of ${r.origin} extends the tree of ${r.from}: the log only grew between the two checkpoints (signed by ${r.keyName}).`,
          );
      } catch (error) {
        if (!isWarrantError(error)) throw error;
        if (opts.json) printJson({ ok: false, error: error.token, message: error.message });
        throw new CliExit(EXIT_FAILURE, opts.json ? undefined : `FAILED: ${error.token}: ${error.message}`);
      }
    });
}
