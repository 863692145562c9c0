import type { Command } from 'commander';
import { printJson, printText } from '../output.js';
import type { StoreFlags } from '../store-access.js';

/** `warrant export otel --endpoint URL` (docs/integrations.md): sessions as spans over OTLP/HTTP (admin, direct store). */
export function registerExportCommand(program: Command): void {
  const exp = program.command('export').description('export the ledger to standard formats');
  exp
    .command('otel')
    .description('send sessions as OpenTelemetry spans to an OTLP/HTTP endpoint')
    .requiredOption('--endpoint <url>', 'the OTLP/HTTP base URL (spans go to <url>/v1/traces)')
    .option('--session <ref...>', 'only these sessions (ids or uids); default all')
    .option('--header <name=value...>', 'extra HTTP headers for the collector')
    .option('--data-dir <dir>', 'data dir (default ./.warrant)')
    .option('--database-url <url>', 'PostgreSQL instead of SQLite')
    .option('--json', 'print JSON')
    .action(async (opts: StoreFlags & { endpoint: string; session?: string[]; header?: string[]; json?: boolean }) => {
      const { withStore } = await import('../store-access.js');
      const { exportToOtlp } = await import('../../integrations/otel-export.js');
      const { requireSession } = await import('../../app/kernel.js');
      await withStore(opts, async (ctx, admin) => {
        const ids = opts.session ? await Promise.all(opts.session.map(async (ref) => (await requireSession(ctx.store.kysely, ctx, admin, ref)).id)) : undefined;
        const headers = Object.fromEntries((opts.header ?? []).map((h) => [h.slice(0, h.indexOf('=')), h.slice(h.indexOf('=') + 1)]));
        const r = await exportToOtlp(ctx, { endpoint: opts.endpoint, ...(ids ? { sessionIds: ids } : {}), headers });
        if (opts.json) return printJson(r);
        printText(`Exported ${r.spans} span(s), ${r.links} uncle link(s) and ${r.events} human-message event(s) to ${opts.endpoint}.`);
      });
    });
}
