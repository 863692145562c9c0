import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { serve } from '@hono/node-server';
import pino from 'pino';
import { ConfigError, type Config } from '../config.js';
import { openService } from '../composition.js';
import { dataDirExposure } from '../server-secret.js';
import { InFlightResponses } from './serve-drain.js';

/**
 * Shutdown (docs/operations.md): requests admitted before the signal are all answered before
 * the store closes; if some are still stuck after this long, the node gives up and exits 1.
 * Below the usual supervisor kill timeouts (Kubernetes: 30 s).
 */
const SHUTDOWN_DEADLINE_MS = 25_000;
/** How long an idle keep-alive connection stays open (docs/operations.md). */
const KEEP_ALIVE_MS = 65_000;
/** How long a live stream, asked to end, may take before its connection is cut (a reader that stopped reading). */
const STREAM_END_GRACE_MS = 1000;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** One sentence naming the fix for the usual reasons a port cannot be bound. */
function listenError(error: unknown, config: Config): Error {
  const code = String((error as NodeJS.ErrnoException)?.code ?? '');
  const where = `${config.host}:${config.port}`;
  if (code === 'EADDRINUSE')
    return new Error(`cannot listen on ${where}: the port is in use (EADDRINUSE); stop the process holding it or pass another --port.`);
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
  let inFlight: InFlightResponses;
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
    // an idle connection a client keeps for its next request stays open past the usual proxy
    // idle timeout (60 s), so a proxy never reuses one the node just closed; Node's 5 s default
    // also reset requests a busy node had not read yet
    (server as Server).keepAliveTimeout = KEEP_ALIVE_MS;
    (server as Server).headersTimeout = KEEP_ALIVE_MS + 1000;
    inFlight = new InFlightResponses(server as Server);
  } catch (error) {
    // A node that cannot listen serves nothing: close the store (its connections and
    // listeners) so the process exits instead of looking alive to a supervisor.
    await service.stop().catch(() => {});
    await service.store.destroy().catch(() => {});
    // the fleet key this first start created is not lost with it: say where it is
    if (fleetKey.created) process.stderr.write(`A fleet key was created before the failure: ${fleetKey.path} (mode 0600); the next start uses it.\n`);
    throw listenError(error, config);
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const scheme = tls ? 'https' : 'http';
  const url = `${scheme}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const out: string[] = [];
  out.push(`Warrant listening on ${url}`);
  out.push(`Store: ${service.store.label}`);
  out.push(`Mode: ${service.ctx.mode}`);
  if (fleetKey.created) {
    out.push(`Fleet key created (shown once; also written to ${fleetKey.path}, mode 0600):`);
    out.push(`  ${fleetKey.token}`);
  } else {
    out.push(`Fleet key: ${fleetKey.path} (read it there; \`warrant keys issue-fleet\` issues another)`);
  }
  for (const line of await service.bannerLines({ url })) out.push(line);
  for (const line of dataDirExposure(config.dataDir)) process.stderr.write(line + '\n');
  let stopOtel: () => Promise<void> = async () => {};
  if (config.otelEndpoint) {
    const { startContinuousOtelExport } = await import('../integrations/otel-export.js');
    stopOtel = startContinuousOtelExport(service.ctx, config.otelEndpoint);
    out.push(`OpenTelemetry: exporting ended sessions to ${config.otelEndpoint}`);
  }
  process.stdout.write(out.join('\n') + '\n');

  let shuttingDown = false;
  const shutdown = (signal: string) => {
    if (shuttingDown) {
      // a second signal: the operator does not want to wait for the drain
      logger.warn({ signal, stuck: inFlight.size }, 'second signal: exiting without waiting for the drain');
      process.exit(1);
    }
    shuttingDown = true;
    logger.info({ signal, inFlight: inFlight.size }, 'shutting down');
    const otelStopped = stopOtel();
    const deadline = setTimeout(() => {
      logger.error(
        { stuck: inFlight.size, streams: service.ctx.live.openStreams },
        `shutdown: requests still unanswered after ${SHUTDOWN_DEADLINE_MS} ms; exiting without waiting for them`,
      );
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    // 1. admit nothing new: no new connections, new requests answered 503 shutting-down
    service.gate.close();
    inFlight.beginClosing();
    // 2. live streams end now (their clients reconnect elsewhere); one that does not is cut
    const streamsEnded = service.ctx.live.endStreams();
    const cut = setTimeout(() => inFlight.cutStreams(), STREAM_END_GRACE_MS);
    cut.unref();
    // 3. every admitted request answered (and its handler returned: a client may have left), and only then the store closes
    void Promise.all([streamsEnded, inFlight.settled(), service.gate.handlersDone()])
      .then(async () => {
        clearTimeout(cut);
        (server as unknown as Server).closeAllConnections();
        await otelStopped;
        await service.stop();
        await service.store.destroy();
        logger.info({ signal }, 'shut down: every admitted request was answered');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}
