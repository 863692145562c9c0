import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { serve } from '@hono/node-server';
import pino from 'pino';
import type { Config } from '../config.js';
import { openService } from '../composition.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** `warrant serve`: REST, SSE, MCP and the web UI on one port. */
export async function runServe(config: Config): Promise<void> {
  const tls = config.tlsCert && config.tlsKey;
  if (!LOOPBACK.has(config.host) && !tls && !config.insecureBind) {
    throw new Error(`Refusing to bind to ${config.host} without TLS: set WARRANT_TLS_CERT and WARRANT_TLS_KEY, or pass --insecure-bind.`);
  }
  const logger = pino({ level: config.logLevel }, pino.destination(2));
  const { service, fleetKey } = await openService(config, logger);
  const server = serve({
    fetch: service.app.fetch,
    hostname: config.host,
    port: config.port,
    ...(tls ? { createServer: createHttpsServer, serverOptions: { cert: readFileSync(config.tlsCert!), key: readFileSync(config.tlsKey!) } } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
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
  let stopOtel = () => {};
  if (config.otelEndpoint) {
    const { startContinuousOtelExport } = await import('../integrations/otel-export.js');
    stopOtel = startContinuousOtelExport(service.ctx, config.otelEndpoint);
    out.push(`OpenTelemetry: exporting ended sessions to ${config.otelEndpoint}`);
  }
  process.stdout.write(out.join('\n') + '\n');

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.close();
    stopOtel();
    void service.stop().then(() => service.store.destroy()).finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}
