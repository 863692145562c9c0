import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { exitPolicy, printText } from '../output.js';

export function registerServerCommands(program: Command): void {
  program
    .command('serve')
    .description('run the server: REST, live events, MCP and the web UI')
    .option('--host <host>', 'bind address (default 127.0.0.1; elsewhere needs TLS or --insecure-bind)')
    .option('--port <port>', 'port (default 7420)')
    .option('--data-dir <dir>', 'data dir (default ./.warrant)')
    .option('--database-url <url>', 'PostgreSQL (postgres://…) instead of embedded SQLite')
    .option('--mode <mode>', 'single-admin or multi-user')
    .option('--server-secret-file <file>', 'the server secret every node shares (or $WARRANT_SERVER_SECRET; default <data dir>/server-secret)')
    .option('--insecure-bind', 'allow a non-loopback bind without TLS')
    .option('--otel-endpoint <url>', 'export ended sessions as OpenTelemetry spans to this OTLP/HTTP endpoint')
    .action(
      async (opts: {
        host?: string;
        port?: string;
        dataDir?: string;
        databaseUrl?: string;
        mode?: 'single-admin' | 'multi-user';
        serverSecretFile?: string;
        insecureBind?: boolean;
        otelEndpoint?: string;
      }) => {
        const { loadConfig } = await import('../../config.js');
        const config = loadConfig(process.env, {
          ...(opts.host ? { host: opts.host } : {}),
          ...(opts.port ? { port: opts.port } : {}),
          ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
          ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}),
          ...(opts.mode ? { mode: opts.mode } : {}),
          ...(opts.serverSecretFile ? { serverSecretFile: opts.serverSecretFile } : {}),
          ...(opts.insecureBind ? { insecureBind: true } : {}),
          ...(opts.otelEndpoint ? { otelEndpoint: opts.otelEndpoint } : {}),
        });
        exitPolicy.hardExitOnFailure = true;
        const { runServe } = await import('../serve.js');
        await runServe(config);
        await new Promise(() => {}); // serve until a signal
      },
    );

  program
    .command('init')
    .description('create the data dir and the admin roster row, and print a fleet key')
    .option('--admin <key>', 'the admin roster key (default: $WARRANT_ADMIN_USER or your login name)')
    .option('--name <display name>', "the admin's display name")
    .option('--replace-admin', 'with --admin on a store that already has a different admin: make this one the admin (an audited setting change)')
    .option('--data-dir <dir>', 'data dir (default ./.warrant)')
    .option('--database-url <url>', 'PostgreSQL instead of SQLite')
    .option('--server-secret-file <file>', 'the server secret every node shares (or $WARRANT_SERVER_SECRET; default <data dir>/server-secret)')
    .action(async (opts: { admin?: string; name?: string; replaceAdmin?: boolean; dataDir?: string; databaseUrl?: string; serverSecretFile?: string }) => {
      const { withStore } = await import('../store-access.js');
      const { adoptAdminUser } = await import('../../app/users/index.js');
      const { ensureFleetKey } = await import('../../composition.js');
      await withStore(opts, async (ctx, admin, config) => {
        const key = (opts.admin ?? config.adminUser ?? userInfo().username).toLowerCase().replace(/[^a-z0-9._-]/g, '-');
        const adopted = await adoptAdminUser(ctx, admin, {
          key,
          ...(opts.name ? { displayName: opts.name } : {}),
          explicit: opts.admin !== undefined,
          replace: opts.replaceAdmin === true,
        });
        const user = adopted.user;
        const fleet = await ensureFleetKey(ctx, config);
        const admitted =
          adopted.outcome === 'kept' && user.key !== key
            ? ` — this store already has an admin; kept (init never replaces one; --admin ${key} --replace-admin does)`
            : adopted.outcome === 'replaced'
              ? ` — replaced ${adopted.previous}`
              : '';
        const lines = [`Data dir: ${config.dataDir}`, `Store: ${ctx.store.label}`, `Admin: ${user.key} (${user.displayName})${admitted}`];
        if (fleet.token) lines.push(`Fleet key${fleet.created ? ' (new)' : ''}, in ${fleet.path}:`, `  ${fleet.token}`);
        printText(lines.join('\n'));
      });
    });
}
