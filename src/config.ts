import { resolve, join } from 'node:path';
import { z } from 'zod';

/**
 * Configuration, parsed once at startup from the environment and command-line flags
 * (flags win). Settings every node must share are only *seeded* from here (docs/concepts.md).
 */
const ConfigSchema = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  port: z
    .string()
    .or(z.number())
    .transform((v) => String(v).trim())
    .refine((v) => /^\d{1,5}$/.test(v) && Number(v) <= 65535, { message: 'must be a port number from 0 to 65535 (0 picks a free one)' })
    .transform(Number)
    .default(7420),
  dataDir: z.string().min(1).default('./.warrant'),
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  fleetKey: z
    .string()
    .regex(/^wrt_f_[A-Za-z0-9_-]{16,}$/, 'must be a fleet key (wrt_f_…)')
    .optional(),
  // the secret session tokens are derived from; never in the store (docs/operations.md)
  serverSecret: z
    .string()
    .trim()
    .regex(/^(?:[0-9a-fA-F]{2}){32,}$/, 'must be at least 64 hexadecimal characters (32 bytes), e.g. the output of `openssl rand -hex 32`')
    .optional(),
  serverSecretFile: z.string().min(1).optional(),
  adminUser: z.string().min(1).optional(),
  // absent: the store's own (docs/operations.md); given: must agree with it
  mode: z.enum(['single-admin', 'multi-user']).optional(),
  slackSigningSecret: z.string().min(1).optional(),
  tlsCert: z.string().min(1).optional(),
  tlsKey: z.string().min(1).optional(),
  insecureBind: z.boolean().default(false),
  otelEndpoint: z.string().url('must be a URL').optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = z.infer<typeof ConfigSchema> & { sqliteFile: string };

const ENV_KEYS: Record<string, keyof z.input<typeof ConfigSchema>> = {
  WARRANT_HOST: 'host',
  WARRANT_PORT: 'port',
  WARRANT_DATA_DIR: 'dataDir',
  DATABASE_URL: 'databaseUrl',
  WARRANT_FLEET_KEY: 'fleetKey',
  WARRANT_SERVER_SECRET: 'serverSecret',
  WARRANT_SERVER_SECRET_FILE: 'serverSecretFile',
  WARRANT_ADMIN_USER: 'adminUser',
  WARRANT_MODE: 'mode',
  WARRANT_SLACK_SIGNING_SECRET: 'slackSigningSecret',
  WARRANT_TLS_CERT: 'tlsCert',
  WARRANT_TLS_KEY: 'tlsKey',
  WARRANT_LOG_LEVEL: 'logLevel',
  WARRANT_OTEL_ENDPOINT: 'otelEndpoint',
};

import { ConfigError } from './config-error.js';

export { ConfigError };

const SECRET_FIELDS = new Set(['databaseUrl', 'fleetKey', 'serverSecret', 'slackSigningSecret']);

export function loadConfig(env: NodeJS.ProcessEnv, flags: Partial<z.input<typeof ConfigSchema>> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const [envKey, field] of Object.entries(ENV_KEYS)) {
    const v = env[envKey];
    if (v !== undefined && v !== '') raw[field] = v;
  }
  const fromFlags = new Set<string>();
  for (const [k, v] of Object.entries(flags)) {
    if (v === undefined) continue;
    raw[k] = v;
    fromFlags.add(k);
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const field = String(i.path[0] ?? '');
      const envName = Object.entries(ENV_KEYS).find(([, f]) => f === field)?.[0];
      // name what the person typed: the flag when it came from one, else the variable
      const source = fromFlags.has(field) ? `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` : (envName ?? field);
      // never echo a credential or a URL that may carry a password back onto a terminal or a log
      const shown = SECRET_FIELDS.has(field) ? 'the value given' : JSON.stringify(raw[field]);
      return `${source}: ${shown} ${i.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  if (parsed.data.serverSecret && parsed.data.serverSecretFile) {
    throw new ConfigError('Invalid configuration:\n  WARRANT_SERVER_SECRET and --server-secret-file both name a server secret; keep one.');
  }
  const dataDir = resolve(parsed.data.dataDir);
  const serverSecretFile = parsed.data.serverSecretFile ? resolve(parsed.data.serverSecretFile) : undefined;
  return { ...parsed.data, dataDir, ...(serverSecretFile ? { serverSecretFile } : {}), sqliteFile: join(dataDir, 'warrant.db') };
}
