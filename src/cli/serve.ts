import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { serve } from '@hono/node-server';
import pino from 'pino';
import { ConfigError, type Config } from '../config.js';
import { openService } from '../composition.js';
import { dataDirExposure } from '../server-secret.js';

/** How long in-flight requests get to finish at shutdown before connections are cut. */
const SHUTDOWN_GRACE_MS = 2000;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** One sentence naming the fix for the usual reasons a port cannot be bound. */
function listenError(error: unknown, config: Config): Error {
  const code = String((error as NodeJS.ErrnoException)?.code ?? '');
  const where = `${config.host}:${config.port}`;
  if (code === 'EADDRINUSE') return new Error(`cannot listen on ${where}: the port is in use (EADDRINUSE); stop the process holding it or pass another --port.`);
  if (code === 'EACCES') return new Error(`cannot listen on ${where}: permission denied (EACCES); use a port above 1023 or grant the capability to bind it.`);
  if (code === 'EADDRNOTAVAIL') return new Error(`cannot listen on ${where}: this host has no such address (EADDRNOTAVAIL); check --host.`);
  return new Error(`cannot listen on ${where}: ${(error as Error)?.message ?? String(error)}`);
}

/** `warrant serve`: REST, SSE, MCP and the web UI on one port. */
export async function runServe(config: Config): Promise<void> {
  const tls = config.tlsCert && config.tlsKey;
  if (!LOOPBACK.has(config.host) && !tls && !config.insecureBind) {
    throw new ConfigError(`Refusing to bind to ${config.host} without TLS: set WARRANT_TLS_CERT and WARRANT_TLS_KEY, or pass --insecure-bind.`);
  }
  const serverOptions = tls ? { cert: readFileSync(config.tlsCert!), key: readFileSync(config.tlsKey!) } : null;
  const logger = pino({ level: config.logLevel }, pino.destination(2));
  const { service, fleetKey } = await openService(config, logger);
  let server: ReturnType<typeof serve>;
  try {
    server = serve({
      fetch: service.app.fetch,
      hostname: config.host,
      port: config.port,
      ...(serverOptions ? { createServer: createHttpsServer, serverOptions } : {}),
    });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', () => resolve());
      server.once('error', reject);
    });
  } catch (error) {
    // A node that cannot listen serves nothing: close the store (its connections and
    // listeners) so the process exits instead of looking alive to a supervisor.
    await service.stop().catch(() => {});
    await service.store.destroy().catch(() => {});
    throw listenError(error, config);
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const scheme = tls ? 'https' : 'http';
  const url = `${scheme}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const out: string[] = [];
  out.push(`Warrant listening on ${url}`);
  out.push(`Store: ${service.store.label}`);
  out.push(`Mode: ${config.mode}`);
  if (fleetKey.created) {
    out.push(`Fleet key created (shown once; also written to ${fleetKey.path}, mode 0600):`);
    out.push(`  ${fleetKey.token}`);
  } else {
    out.push(`Fleet key: ${fleetKey.path}`);
  }
  for (const line of await service.bannerLines({ url })) out.push(line);
  for (const line of dataDirExposure(config.dataDir)) process.stderr.write(line + '\n');
  let stopOtel = () => {};
  if (config.otelEndpoint) {
    const { startContinuousOtelExport } = await import('../integrations/otel-export.js');
    stopOtel = startContinuousOtelExport(service.ctx, config.otelEndpoint);
    out.push(`OpenTelemetry: exporting ended sessions to ${config.otelEndpoint}`);
  }
  process.stdout.write(out.join('\n') + '\n');

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    stopOtel();
    // Stop accepting, let in-flight requests finish, and only then close the store (closing it
    // first turned their last queries into 500s). Live streams never end on their own: they
    // are cut after a short grace.
    const connections = server as unknown as { closeIdleConnections?: () => void; closeAllConnections?: () => void };
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    connections.closeIdleConnections?.();
    const grace = new Promise<void>((resolve) =>
      setTimeout(() => {
        connections.closeAllConnections?.();
        resolve();
      }, SHUTDOWN_GRACE_MS).unref(),
    );
    void Promise.race([drained, grace])
      .then(() => service.stop())
      .then(() => service.store.destroy())
      .catch((error: unknown) => logger.error({ err: error }, 'shutdown'))
      .finally(() => process.exit(0));
    setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS + 3000).unref();
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}
