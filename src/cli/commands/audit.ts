import { createReadStream, readFileSync, writeFileSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { CheckpointExpectation, RecordsReport, VerifyReport } from '../../app/audit-log/index.js';
import { CliExit, EXIT_FAILURE, EXIT_USAGE, printJson, printText } from '../output.js';
import { ProgressBar } from '../progress.js';
import { storeFlags, withStore, type StoreFlags } from '../store-access.js';
import { registerAuditProofCommands } from './audit-proofs.js';

/** The log's code and the access check, loaded by the commands that run them, not by every `warrant` start. */
const auditLog = () => import('../../app/audit-log/index.js');
const kernel = () => import('../../app/kernel.js');

/**
 * `warrant audit verify|export|checkpoint` (docs/attribution.md, docs/api.md): admin commands that open the store
 * directly — except `verify --file`, which checks an exported log without any store, so
 * someone who does not trust the database host can verify it against a signed checkpoint.
 */
interface CheckpointInput {
  expectation: CheckpointExpectation;
  /** " (signed by … at …)": how the report names the checkpoint */
  signed: string;
  json: Record<string, unknown>;
}

async function readCheckpoint(file: string, publicKey: string): Promise<CheckpointInput> {
  let note: string;
  try {
    note = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliExit(EXIT_USAGE, `error: cannot read the checkpoint ${JSON.stringify(file)}: ${(error as Error).message}`);
  }
  const { verifyCheckpointNote, parsePublicKeyInput } = await auditLog();
  const c = verifyCheckpointNote(note, parsePublicKeyInput(publicKey));
  if (c.format === 'legacy-v1') {
    return {
      expectation: { seq: c.seq, hash: c.hash },
      signed: ` (signed by ${c.keyName} at ${c.time})`,
      json: { format: c.format, seq: c.seq, hash: c.hash, time: c.time, key_name: c.keyName },
    };
  }
  const rootHex = Buffer.from(c.rootHash).toString('hex');
  return {
    expectation: { seq: c.treeSize, rootHash: rootHex },
    signed: ` (tree of ${c.origin}, signed by ${c.keyName})`,
    json: { format: c.format, origin: c.origin, tree_size: c.treeSize, root_hash: Buffer.from(c.rootHash).toString('base64'), key_name: c.keyName },
  };
}

function reportText(report: VerifyReport, source: string, checkpoint: CheckpointInput | null): string {
  const lines: string[] = [];
  if (report.broken) {
    lines.push(`BROKEN: the audit log (${source}) breaks at seq ${report.broken.seq}: ${report.broken.description}.`);
    lines.push(
      `${report.entries.toLocaleString('en-US')} entries before it verify${report.head ? ` (up to seq ${report.head.seq})` : ''}; nothing from seq ${report.broken.seq} on can be trusted.`,
    );
  } else if (report.head) {
    lines.push(
      `OK: the audit log (${source}) verifies: ${report.entries.toLocaleString('en-US')} entries, head seq ${report.head.seq}, hash ${report.head.hash}.`,
    );
  } else {
    lines.push(`OK: the audit log (${source}) is empty.`);
  }
  for (const c of report.checkpoints) {
    const signed = checkpoint ? checkpoint.signed : '';
    switch (c.outcome) {
      case 'matched':
        lines.push(`Checkpoint seq ${c.seq}${signed} matches: the log held exactly these entries up to it when it was signed.`);
        break;
      case 'hash-differs':
        lines.push(
          `CHECKPOINT MISMATCH: the log's entry ${c.seq} does not have the signed hash ${c.hash}: the log was rewritten after the checkpoint${signed}.`,
        );
        break;
      case 'root-differs':
        lines.push(
          `CHECKPOINT MISMATCH: the Merkle root of the log's first ${c.seq} entries is not the signed root: the log was rewritten after the checkpoint${signed}.`,
        );
        break;
      case 'log-ends-before-checkpoint':
        lines.push(`CHECKPOINT MISMATCH: the log ends at seq ${report.head?.seq ?? 0}, before the checkpoint's seq ${c.seq}${signed}: entries were removed.`);
        break;
      case 'not-reached-chain-broken':
        lines.push(`Checkpoint seq ${c.seq}${signed} could not be checked: the chain breaks before it.`);
        break;
    }
  }
  return lines.join('\n');
}

const PROBLEM_TEXT = {
  differs: 'differs from its log entry',
  missing: 'is missing: its log entry records it and nothing deleted it',
  unlogged: 'has no log entry',
} as const;

function recordsText(r: RecordsReport): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const lines: string[] = [];
  if (r.ok) lines.push(`OK: ${n(r.verified)} evidence records match their log entries.`);
  else {
    const first = r.findings[0]!;
    const at = first.seq !== null ? ` (seq ${first.seq})` : '';
    lines.push(`RECORDS DO NOT MATCH THE LOG: ${n(r.findings_total)} finding(s); the first: ${first.table} ${first.id}${at}.`);
    for (const f of r.findings) {
      const fields = f.fields && f.fields.length > 0 ? ` (${f.fields.join(', ')})` : '';
      lines.push(`  ${f.table} ${f.id}${f.seq !== null ? ` seq ${f.seq}` : ''}: ${f.record} ${PROBLEM_TEXT[f.problem]}${fields}.`);
    }
    const more = r.findings_total - r.findings.length;
    if (more > 0) lines.push(`  … and ${n(more)} more (--json lists the first ${r.findings.length}).`);
    lines.push(`${n(r.verified)} records match their log entries.`);
  }
  if (r.not_covered > 0) {
    lines.push(
      `Not covered: ${n(r.not_covered)} (entries older than the field that names or digests their record, rows older than the log, ` +
        'credentials minted without an entry of their own) — not verified, not failed.',
    );
  }
  const gone = Object.values(r.tables).reduce((sum, t) => sum + t.gone_with_session, 0);
  if (gone > 0) lines.push(`Gone with their deleted session: ${n(gone)} (each deletion is itself a checked record).`);
  return lines.join('\n');
}

function finish(
  report: VerifyReport,
  source: string,
  checkpoint: CheckpointInput | null,
  json: boolean | undefined,
  records: RecordsReport | null = null,
): void {
  const ok = report.ok && (records === null || records.ok);
  const signed = checkpoint ? { checkpoint: checkpoint.json } : {};
  if (json) printJson({ ...report, ok, ...(records ? { chain_ok: report.ok, records } : {}), source, ...signed });
  else printText(reportText(report, source, checkpoint) + (records ? '\n' + recordsText(records) : ''));
  if (!ok) throw new CliExit(EXIT_FAILURE);
}

async function* fileLines(path: string): AsyncGenerator<string> {
  const input = path === '-' ? process.stdin : createReadStream(path, { encoding: 'utf8' });
  const rl = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of rl) yield line;
  } catch (error) {
    throw new CliExit(EXIT_FAILURE, `error: cannot read ${JSON.stringify(path)}: ${(error as Error).message}`);
  }
}

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('the tamper-evident audit log (admin: opens the store directly)');
  registerAuditProofCommands(audit);

  storeFlags(
    audit
      .command('verify')
      .description('recompute the hash chain and report the first broken seq (exit 1 when broken)')
      .option('--file <path>', 'verify an exported log (JSON Lines; "-" for stdin) instead of the store')
      .option('--checkpoint <file>', 'a signed checkpoint the log must agree with (needs --public-key)')
      .option('--public-key <key>', "the checkpoint key's public verifier key (or a file holding it)")
      .option('--records', 'also check every evidence record in the store against its log entry (exit 1 on any difference)')
      .option('--json', 'print the report as JSON'),
  ).action(async (opts: StoreFlags & { file?: string; checkpoint?: string; publicKey?: string; records?: boolean; json?: boolean }) => {
    if (opts.records && opts.file) throw new CliExit(EXIT_USAGE, "error: --records checks the store's records; an exported log (--file) holds none.");
    if (opts.checkpoint && !opts.publicKey)
      throw new CliExit(EXIT_USAGE, 'error: --checkpoint needs --public-key: a checkpoint proves nothing without a key you trust.');
    if (opts.publicKey && !opts.checkpoint) throw new CliExit(EXIT_USAGE, 'error: --public-key goes with --checkpoint <file>.');
    const checkpoint = opts.checkpoint ? await readCheckpoint(opts.checkpoint, opts.publicKey!) : null;
    const checkpoints = checkpoint ? [checkpoint.expectation] : [];
    const bar = new ProgressBar('verifying');
    if (opts.file) {
      const { verifyExportLines } = await auditLog();
      const report = await verifyExportLines(fileLines(opts.file), { checkpoints, onProgress: (done) => bar.update(done, 0) });
      bar.finish(report.entries, 0);
      return finish(report, opts.file === '-' ? 'stdin' : opts.file, checkpoint, opts.json);
    }
    await withStore(
      opts,
      async (ctx, admin) => {
        const [{ verifyStoredChain, verifyStoredRecords }, { authorize }] = await Promise.all([auditLog(), kernel()]);
        await authorize(ctx.store.kysely, ctx, admin, 'admin', null);
        let total = 0;
        const report = await verifyStoredChain(ctx.store.kysely, {
          checkpoints,
          onProgress: (done, all) => {
            total = all;
            bar.update(done, all);
          },
        });
        bar.finish(report.broken ? report.entries : total, total);
        let records: RecordsReport | null = null;
        if (opts.records) {
          // one bar per phase (the log, then each table), each closed when the next begins
          let current: { phase: string; bar: ProgressBar; done: number; all: number } | null = null;
          records = await verifyStoredRecords(ctx.store, {
            onProgress: (phase, done, all) => {
              if (current?.phase !== phase) {
                current?.bar.finish(current.done, current.all);
                current = { phase, bar: new ProgressBar(phase), done, all };
              }
              current.done = done;
              current.all = all;
              current.bar.update(done, all);
            },
          });
          const last = current as { bar: ProgressBar; done: number; all: number } | null;
          last?.bar.finish(last.done, last.all);
        }
        finish(report, ctx.store.label, checkpoint, opts.json, records);
      },
      { mustExist: true },
    );
  });

  storeFlags(
    audit
      .command('export')
      .description('stream the log as JSON Lines (schema_version 1; readers ignore unknown keys)')
      .option('--out <file>', 'write to a file instead of stdout')
      .option('--after-seq <n>', 'only entries after this seq'),
  ).action(async (opts: StoreFlags & { out?: string; afterSeq?: string }) => {
    const afterSeq = opts.afterSeq === undefined ? 0 : Number(opts.afterSeq);
    if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) throw new CliExit(EXIT_USAGE, 'error: --after-seq must be a whole number.');
    await withStore(
      opts,
      async (ctx, admin) => {
        const [{ exportAuditLines }, { authorize }] = await Promise.all([auditLog(), kernel()]);
        await authorize(ctx.store.kysely, ctx, admin, 'admin', null);
        const out = opts.out ? createWriteStream(opts.out, { encoding: 'utf8' }) : process.stdout;
        // `warrant audit export | head` closes the pipe early: stop quietly, not with a stack trace
        if (!opts.out) process.stdout.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' ? process.exit(0) : undefined));
        // the bar shares the terminal only when the log itself is not printed on it
        const bar = new ProgressBar('exporting', process.stderr, process.stderr.isTTY === true && (opts.out !== undefined || process.stdout.isTTY !== true));
        let done = 0;
        let total = 0;
        for await (const line of exportAuditLines(ctx.store.kysely, {
          afterSeq,
          onProgress: (d, t) => {
            done = d;
            total = t;
            bar.update(d, t);
          },
        })) {
          if (!out.write(line + '\n')) await once(out, 'drain');
        }
        bar.finish(done, total);
        if (opts.out)
          await new Promise<void>((resolve, reject) =>
            (out as ReturnType<typeof createWriteStream>).end((error?: Error | null) => (error ? reject(error) : resolve())),
          );
      },
      { mustExist: true },
    );
  });

  storeFlags(
    audit
      .command('checkpoint')
      .description('sign a checkpoint of the current head now (or --latest: the newest stored one) and print it as a signed note')
      .option('--latest', 'do not sign: export the newest stored checkpoint')
      .option('--out <file>', 'write the note to a file')
      .option('--json', 'print JSON'),
  ).action(async (opts: StoreFlags & { latest?: boolean; out?: string; json?: boolean }) => {
    await withStore(
      opts,
      async (ctx, admin) => {
        const [{ newestCheckpoint, writeCheckpoint }, { authorize }] = await Promise.all([auditLog(), kernel()]);
        await authorize(ctx.store.kysely, ctx, admin, 'admin', null);
        let checkpoint;
        let wrote = false;
        if (opts.latest) {
          checkpoint = await newestCheckpoint(ctx);
          if (!checkpoint)
            throw new CliExit(EXIT_FAILURE, 'error: no checkpoint has been signed yet; run `warrant audit checkpoint` (with a checkpoint key set).');
        } else {
          const r = await writeCheckpoint(ctx);
          if (!r.written && r.reason === 'no-key')
            throw new CliExit(EXIT_FAILURE, 'error: no checkpoint key is set; set one with `warrant settings set checkpoint_key generate`.');
          if (!r.written && r.reason === 'empty-log') throw new CliExit(EXIT_FAILURE, 'error: the audit log is empty; there is nothing to sign yet.');
          checkpoint = r.checkpoint!;
          wrote = r.written;
        }
        if (opts.out) writeFileSync(opts.out, checkpoint.note, { encoding: 'utf8' });
        if (opts.json) {
          return printJson({
            seq: checkpoint.seq,
            hash: checkpoint.hash,
            signed_at: checkpoint.signedAt,
            key_name: checkpoint.keyName,
            key_hash: checkpoint.keyHash,
            note: checkpoint.note,
            newly_signed: wrote,
            ...(opts.out ? { written_to: opts.out } : {}),
          });
        }
        const head = wrote ? `Signed a checkpoint of seq ${checkpoint.seq}.` : `The head (seq ${checkpoint.seq}) is already signed; this is that checkpoint.`;
        if (opts.out) printText(`${opts.latest ? `Newest checkpoint: seq ${checkpoint.seq}.` : head} Written to ${opts.out}.`);
        else printText(`${opts.latest ? '' : head + '\n\n'}${checkpoint.note}`);
      },
      { mustExist: true },
    );
  });
}
