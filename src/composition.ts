import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Config } from './config.js';
import { openStoreWithSecret } from './server-secret.js';
import type { StoreDialect } from './store/dialect/dialect.js';
import { createAppContext, registerFleetKey, SETTING_ALLOWED_HOSTS } from './app/bootstrap.js';
import type { AppContext } from './app/context.js';
import { generateToken } from './app/credentials.js';
import { getSetting } from './store/settings-repo.js';
import { buildHttpApp } from './http/app.js';
import type { HttpEnv } from './http/env.js';
import { HostGuard } from './http/host-guard.js';
import { ShutdownGate } from './http/shutdown-gate.js';
import { mountMcp } from './mcp/http-mount.js';
import { mountWeb } from './web/mount.js';
import { webBannerLines, type BannerInfo } from './web/banner.js';
import { startHousekeeping } from './app/housekeeping.js';
import { coverageBannerLines, syncCoverageAtStart } from './app/human-messages/coverage-state.js';

/** The assembled service: store, context and HTTP app (REST, SSE, MCP, and later the UI). */
export interface Service {
  store: StoreDialect;
  ctx: AppContext;
  app: OpenAPIHono<HttpEnv>;
  hostGuard: HostGuard;
  /** closed by `warrant serve` when it starts shutting down: new requests get 503 `shutting-down` */
  gate: ShutdownGate;
  /** lines `warrant serve` prints at start (capture coverage, sign-in links, …) */
  bannerLines(info?: BannerInfo): Promise<string[]>;
  stop(): Promise<void>;
}

/** Contributions to the start banner, wired here: capture coverage, then the web UI's sign-in lines. */
const BANNER_CONTRIBUTORS: readonly ((ctx: AppContext, info: BannerInfo) => Promise<string[]>)[] = [coverageBannerLines, webBannerLines];

export async function assembleService(store: StoreDialect, ctx: AppContext, options: { extraHosts?: string[]; housekeeping?: boolean } = {}): Promise<Service> {
  const allowed = await getSetting(store.kysely, SETTING_ALLOWED_HOSTS);
  const hostGuard = new HostGuard(allowed ? (JSON.parse(allowed) as string[]) : HostGuard.defaults(options.extraHosts ?? []));
  const gate = new ShutdownGate();
  const app = buildHttpApp(ctx, { gate, mount: [mountMcp(ctx, hostGuard), mountWeb(ctx, hostGuard)] });
  await syncCoverageAtStart(ctx);
  await ctx.live.start();
  ctx.hierarchies.start();
  const stopHousekeeping = options.housekeeping === false ? async () => {} : startHousekeeping(ctx);
  return {
    store,
    ctx,
    app,
    hostGuard,
    gate,
    async bannerLines(info: BannerInfo = { url: null }) {
      const lines: string[] = [];
      for (const contribute of BANNER_CONTRIBUTORS) lines.push(...(await contribute(ctx, info)));
      return lines;
    },
    async stop() {
      await stopHousekeeping();
      await ctx.hierarchies.stop();
      await ctx.live.stop();
    },
  };
}

/**
 * Opens the configured store and builds the service around it. A failure on the way closes
 * what was opened (a node that cannot start must exit, not linger with open connections).
 */
export async function openService(
  config: Config,
  logger: Logger,
  notice: (line: string) => void = (line) => process.stderr.write(line + '\n'),
): Promise<{ service: Service; fleetKey: { created: boolean; path: string; token: string | null } }> {
  const { store, serverSecret } = await openStoreWithSecret(config, notice);
  let service: Service | undefined;
  try {
    const ctx = await createAppContext(store, {
      mode: config.mode,
      logger,
      serverSecret,
      seed: { adminUser: config.adminUser, slackSigningSecret: config.slackSigningSecret },
    });
    const fleetKey = await ensureFleetKey(ctx, config);
    service = await assembleService(store, ctx, { extraHosts: config.host !== '127.0.0.1' && config.host !== '0.0.0.0' ? [config.host] : [] });
    return { service, fleetKey };
  } catch (error) {
    await service?.stop().catch(() => {});
    await store.destroy().catch(() => {});
    throw error;
  }
}

/**
 * docs/concepts.md: on first start with no fleet key, create one, print it once and write it to
 * `<data dir>/fleet-key` (0600) for local tools. WARRANT_FLEET_KEY is accepted in addition.
 */
export async function ensureFleetKey(ctx: AppContext, config: Config): Promise<{ created: boolean; path: string; token: string | null }> {
  const path = join(config.dataDir, 'fleet-key');
  if (config.fleetKey) await registerFleetKey(ctx, config.fleetKey, 'WARRANT_FLEET_KEY');
  if (existsSync(path)) {
    const token = readFileSync(path, 'utf8').trim();
    if (token) await registerFleetKey(ctx, token, 'data dir fleet-key');
    return { created: false, path, token: token || null };
  }
  const token = generateToken(ctx, 'fleet');
  await registerFleetKey(ctx, token, 'created on first start');
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(path, token + '\n', { mode: 0o600 });
  chmodSync(path, 0o600);
  return { created: true, path, token };
}
