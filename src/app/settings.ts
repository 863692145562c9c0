import { syncCoverage } from './human-messages/coverage-state.js';
import { SETTING_SLACK_WORKSPACE_URL } from './slack/ingress.js';
import { WarrantError } from '../core/errors.js';
import { formatDuration, parseDuration } from '../core/durations.js';
import { isValidUserKey } from '../core/tokens.js';
import { deleteSetting, getAllSettings, getSetting, setSetting } from '../store/settings-repo.js';
import { findUserByKey } from '../store/users-repo.js';
import type { Executor } from '../store/dialect/dialect.js';
import { authorize } from './access.js';
import {
  DEPLOYMENT_MODES,
  SETTING_ADMIN_USER,
  SETTING_ALLOWED_HOSTS,
  SETTING_DEPLOYMENT_MODE,
  SETTING_SERVER_SECRET_CHECK,
  SETTING_SLACK_SIGNING_SECRET,
} from './bootstrap.js';
import { callerActor, type Caller } from './caller.js';
import {
  DEFAULT_CHECKPOINT_INTERVAL,
  DEFAULT_KEY_NAME,
  SETTING_AUDIT_ORIGIN,
  SETTING_CHECKPOINT_INTERVAL,
  SETTING_CHECKPOINT_KEY,
  generateSignerKey,
  signerFromText,
} from './checkpoints.js';
import { isValidOrigin } from '../core/signed-note.js';
import type { AppContext } from './context.js';
import { SETTING_AUTO_ARCHIVE_AFTER, SETTING_DELETE_ARCHIVED_AFTER } from './retention.js';
import { inWriteTx } from './write-scope.js';
import { SETTING_TRANSCRIPTS } from './sessions/transcript.js';
import {
  DEFAULT_MESSAGE_CAPACITY,
  DEFAULT_MESSAGE_RETENTION,
  MAX_MESSAGE_CAPACITY,
  SETTING_MESSAGE_CAPACITY,
  SETTING_MESSAGE_RETENTION,
} from './messages/message-retention.js';

/**
 * Settings every node must agree on live in the store (docs/concepts.md); the admin CLI changes them
 * (`warrant settings get|set|unset`). Each has a validator, a way to be shown (secrets
 * masked; the checkpoint key as its public verifier key), and each change is appended to the
 * tamper-evident log with its actor — never with a secret value.
 */
interface SettingDefinition {
  key: string;
  description: string;
  secret: boolean;
  /** what applies while unset */
  defaultText: string;
  /** false for settings only Warrant itself writes */
  settable: boolean;
  /** how a change reaches running servers */
  takesEffect: string;
  parse(input: string, env: { ctx: AppContext; db: Executor }): Promise<string>;
  show(stored: string): string;
  /** what the audit entry records about the new value (never a secret) */
  logValue(stored: string): unknown;
}

function invalid(key: string, message: string): WarrantError {
  return new WarrantError('invalid-setting', `${key}: ${message}`, { details: { setting: key } });
}

const masked = (stored: string) => `set (${stored.length} characters; hidden — pass --reveal to print it)`;

function durationSetting(key: string, description: string, defaultText: string, minimumMs: number, takesEffect: string): SettingDefinition {
  return {
    key,
    description,
    secret: false,
    defaultText,
    settable: true,
    takesEffect,
    async parse(input) {
      const ms = parseDuration(input);
      if (ms === undefined)
        throw invalid(key, `${JSON.stringify(input)} is not a duration; write a number and a unit (s, m, h, d, w), like 30m or 7d, or "off".`);
      if (ms === null) return 'off';
      if (ms < minimumMs) throw invalid(key, `at least ${formatDuration(minimumMs)}.`);
      return formatDuration(ms);
    },
    show: (stored) => stored,
    logValue: (stored) => stored,
  };
}

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function parseHost(raw: string): string | null {
  const h = raw.trim().toLowerCase();
  if (/^\[[0-9a-f:.]+\]$/.test(h) && h.includes(':')) return h;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(h)) return h.split('.').every((n) => Number(n) <= 255) ? h : null;
  if (h.length > 253) return null;
  return h.split('.').every((label) => HOST_LABEL.test(label)) ? h : null;
}

const SETTING_DEFINITIONS: readonly SettingDefinition[] = [
  {
    key: SETTING_ADMIN_USER,
    description: "the single admin's roster key (single-admin mode: the human the web UI acts as)",
    secret: false,
    defaultText: 'none',
    settable: true,
    takesEffect: 'immediately',
    async parse(input, { db }) {
      const key = input.trim();
      if (!isValidUserKey(key)) throw invalid(SETTING_ADMIN_USER, `${JSON.stringify(input)} is not a roster key.`);
      const user = await findUserByKey(db, key);
      if (!user || user.removedAt) throw invalid(SETTING_ADMIN_USER, `no roster user has the key ${key}; add one with \`warrant users add ${key} --admin\`.`);
      if (!user.isAdmin) throw invalid(SETTING_ADMIN_USER, `${key} is not an admin; make them one first with \`warrant users edit ${key} --admin yes\`.`);
      return key;
    },
    show: (stored) => stored,
    logValue: (stored) => stored,
  },
  {
    key: SETTING_DEPLOYMENT_MODE,
    description: 'single-admin (one operator) or multi-user (owners see only their own sessions); every node and the host CLI read it from the store',
    secret: false,
    defaultText: 'single-admin (recorded at the first start)',
    settable: true,
    takesEffect: 'at the next start of each node (a node started with a WARRANT_MODE that disagrees refuses to start)',
    async parse(input) {
      const v = input.trim();
      if (!(DEPLOYMENT_MODES as readonly string[]).includes(v))
        throw invalid(SETTING_DEPLOYMENT_MODE, `${JSON.stringify(input)}: write single-admin or multi-user.`);
      return v;
    },
    show: (stored) => stored,
    logValue: (stored) => stored,
  },
  {
    key: SETTING_SLACK_SIGNING_SECRET,
    description: "the Slack app's signing secret, which verifies Slack ingress requests",
    secret: true,
    defaultText: 'none (Slack ingress refuses every request)',
    settable: true,
    takesEffect: 'immediately',
    async parse(input) {
      const v = input.trim();
      if (!/^[A-Za-z0-9]{16,128}$/.test(v))
        throw invalid(SETTING_SLACK_SIGNING_SECRET, "expected the signing secret from the Slack app's Basic Information page (16–128 letters and digits).");
      return v;
    },
    show: masked,
    logValue: () => ({ set: true }),
  },
  {
    key: SETTING_SLACK_WORKSPACE_URL,
    description: 'the Slack workspace URL (https://acme.slack.com), from which human-message permalinks are built',
    secret: false,
    defaultText: 'none (human messages from Slack carry no permalink)',
    settable: true,
    takesEffect: 'immediately',
    async parse(input) {
      const v = input.trim().replace(/\/+$/, '');
      let url: URL;
      try {
        url = new URL(v);
      } catch {
        throw invalid(SETTING_SLACK_WORKSPACE_URL, 'expected a URL like https://acme.slack.com.');
      }
      if (url.protocol !== 'https:' || url.pathname !== '/' || url.search || url.hash)
        throw invalid(SETTING_SLACK_WORKSPACE_URL, 'expected an https URL with no path, like https://acme.slack.com.');
      return url.origin;
    },
    show: (stored) => stored,
    logValue: (stored) => stored,
  },
  {
    key: SETTING_ALLOWED_HOSTS,
    description: 'Host/Origin names the web UI and /mcp accept (DNS-rebinding protection)',
    secret: false,
    defaultText: 'localhost, 127.0.0.1, [::1] and the bind host',
    settable: true,
    takesEffect: 'when each server restarts',
    async parse(input) {
      const parts = input.split(/[\s,]+/).filter((p) => p !== '');
      if (parts.length === 0) throw invalid(SETTING_ALLOWED_HOSTS, 'name at least one host (comma-separated), or unset it for the defaults.');
      const hosts: string[] = [];
      for (const p of parts) {
        const h = parseHost(p);
        if (!h)
          throw invalid(SETTING_ALLOWED_HOSTS, `${JSON.stringify(p)} is not a host name, IPv4 address or [IPv6] address (no scheme, port, path or wildcard).`);
        if (!hosts.includes(h)) hosts.push(h);
      }
      return JSON.stringify(hosts);
    },
    show: (stored) => (JSON.parse(stored) as string[]).join(', '),
    logValue: (stored) => JSON.parse(stored) as string[],
  },
  {
    key: SETTING_CHECKPOINT_KEY,
    description: 'the Ed25519 key that signs audit checkpoints; shown as its public verifier key',
    secret: true,
    defaultText: 'none (no checkpoints are signed)',
    settable: true,
    takesEffect: 'at the next checkpoint',
    async parse(input, { ctx }) {
      const v = input.trim();
      const generate = /^generate(?::(.+))?$/.exec(v);
      if (generate) return generateSignerKey(ctx.ids, generate[1] ?? DEFAULT_KEY_NAME);
      try {
        signerFromText(v);
      } catch (error) {
        throw invalid(SETTING_CHECKPOINT_KEY, error instanceof WarrantError ? error.message.replace(/^checkpoint key: /, '') : 'not a signer key.');
      }
      return v;
    },
    show: (stored) => signerFromText(stored).verifierKey,
    logValue: (stored) => ({ verifier_key: signerFromText(stored).verifierKey }),
  },
  {
    key: SETTING_AUDIT_ORIGIN,
    description: "the log's name on the first line of every checkpoint (docs/audit-log.md), e.g. acme.example/warrant; verifiers expect it to stay the same",
    secret: false,
    defaultText: "the checkpoint key's name",
    settable: true,
    takesEffect: 'at the next checkpoint',
    async parse(input) {
      const v = input.trim();
      if (!isValidOrigin(v))
        throw invalid(
          SETTING_AUDIT_ORIGIN,
          `${JSON.stringify(input)}: 1–128 printable characters without spaces or "+" (a schema-less URL such as acme.example/warrant).`,
        );
      return v;
    },
    show: (stored) => stored,
    logValue: (stored) => stored,
  },
  durationSetting(
    SETTING_CHECKPOINT_INTERVAL,
    'how often housekeeping signs a checkpoint when the log has grown',
    DEFAULT_CHECKPOINT_INTERVAL,
    60_000,
    'at the next housekeeping run',
  ),
  durationSetting(
    SETTING_AUTO_ARCHIVE_AFTER,
    'archive stopped and failed sessions (with their whole spawn subtree) untouched this long; housekeeping, as `system`',
    'off',
    3_600_000,
    'at the next housekeeping run',
  ),
  durationSetting(
    SETTING_DELETE_ARCHIVED_AFTER,
    'delete sessions archived this long (each writes a deletion record, via housekeeping)',
    'off',
    86_400_000,
    'at the next housekeeping run',
  ),
  {
    key: SETTING_MESSAGE_RETENTION,
    description: 'how long an agent message keeps its payload after it is delivered, expired or failed; its history row (no payload) stays',
    secret: false,
    defaultText: DEFAULT_MESSAGE_RETENTION,
    settable: true,
    takesEffect: 'at the next housekeeping run',
    async parse(input) {
      const ms = parseDuration(input);
      if (ms === undefined)
        throw invalid(SETTING_MESSAGE_RETENTION, `${JSON.stringify(input)} is not a duration; write a number and a unit (s, m, h, d, w), like 7d.`);
      // docs/messages.md: payloads are always reclaimed; "keep forever" is not a retention period
      if (ms === null) throw invalid(SETTING_MESSAGE_RETENTION, 'payloads are always reclaimed: give a period, like 30d.');
      if (ms < 60_000) throw invalid(SETTING_MESSAGE_RETENTION, 'at least 1m.');
      return formatDuration(ms);
    },
    show: (stored) => stored,
    logValue: (stored) => stored,
  },
  {
    key: SETTING_MESSAGE_CAPACITY,
    description:
      'how many agent messages may hold a payload at once; beyond it the oldest delivered or expired payloads are reclaimed, and a send that finds none to reclaim is refused (store-capacity)',
    secret: false,
    defaultText: DEFAULT_MESSAGE_CAPACITY.toLocaleString('en-US'),
    settable: true,
    takesEffect: 'at the next send',
    async parse(input) {
      const t = input.trim().replace(/[_,]/g, '');
      const n = /^[0-9]{1,10}$/.test(t) ? Number(t) : NaN;
      if (!Number.isSafeInteger(n) || n < 1 || n > MAX_MESSAGE_CAPACITY)
        throw invalid(SETTING_MESSAGE_CAPACITY, `a whole number of messages from 1 to ${MAX_MESSAGE_CAPACITY.toLocaleString('en-US')}.`);
      return String(n);
    },
    show: (stored) => stored,
    logValue: (stored) => Number(stored),
  },
  {
    key: SETTING_TRANSCRIPTS,
    description:
      "whether runtimes may append their agents' transcripts (on or off); off refuses appends (transcripts-off) and stores nothing, records already stored stay",
    secret: false,
    defaultText: 'on',
    settable: true,
    takesEffect: 'at the next append',
    async parse(input) {
      const v = input.trim().toLowerCase();
      if (v !== 'on' && v !== 'off') throw invalid(SETTING_TRANSCRIPTS, `${JSON.stringify(input)}: write on or off.`);
      return v;
    },
    show: (stored) => stored,
    logValue: (stored) => stored,
  },
  {
    key: SETTING_SERVER_SECRET_CHECK,
    description:
      'a check value of the server secret, so a node with another secret refuses to start; the secret itself lives outside the store (<data dir>/server-secret or WARRANT_SERVER_SECRET)',
    secret: false,
    defaultText: 'set on first start',
    settable: false,
    takesEffect: 'never changed',
    async parse() {
      throw invalid(SETTING_SERVER_SECRET_CHECK, 'set on first start and never changed here: a new server secret would invalidate every session token.');
    },
    show: (stored) => stored,
    logValue: () => ({ set: true }),
  },
];

function definitionOf(key: string): SettingDefinition {
  const def = SETTING_DEFINITIONS.find((d) => d.key === key);
  if (!def) {
    throw new WarrantError('unknown-setting', `No setting is called ${JSON.stringify(key)}. Settings: ${SETTING_DEFINITIONS.map((d) => d.key).join(', ')}.`, {
      details: { setting: key },
    });
  }
  return def;
}

export interface SettingView {
  key: string;
  /** the shown value (masked for secrets unless revealed), or null when unset */
  value: string | null;
  isSet: boolean;
  defaultText: string;
  description: string;
  secret: boolean;
  settable: boolean;
  takesEffect: string;
}

function view(def: SettingDefinition, stored: string | null, reveal: boolean): SettingView {
  return {
    key: def.key,
    value: stored === null ? null : reveal && def.secret ? stored : def.show(stored),
    isSet: stored !== null,
    defaultText: def.defaultText,
    description: def.description,
    secret: def.secret,
    settable: def.settable,
    takesEffect: def.takesEffect,
  };
}

export async function listSettingViews(ctx: AppContext, caller: Caller): Promise<SettingView[]> {
  await authorize(ctx.store.kysely, ctx, caller, 'admin', null);
  const all = await getAllSettings(ctx.store.kysely);
  return SETTING_DEFINITIONS.map((d) => view(d, all.get(d.key) ?? null, false));
}

export async function getSettingView(ctx: AppContext, caller: Caller, key: string, options: { reveal?: boolean } = {}): Promise<SettingView> {
  await authorize(ctx.store.kysely, ctx, caller, 'admin', null);
  const def = definitionOf(key);
  return view(def, await getSetting(ctx.store.kysely, key), options.reveal ?? false);
}

/** Validates and stores a setting; the change is logged (docs/attribution.md) without secret values. */
export async function changeSetting(ctx: AppContext, caller: Caller, key: string, input: string | null): Promise<SettingView> {
  const def = definitionOf(key);
  if (!def.settable) await def.parse(input ?? '', { ctx, db: ctx.store.kysely });
  return inWriteTx(ctx, async (w) => {
    await authorize(w.tx, ctx, caller, 'admin', null);
    const { actor, basis } = callerActor(caller);
    const before = await getSetting(w.tx, key);
    const stored = input === null ? null : await def.parse(input, { ctx, db: w.tx });
    if (stored === before) return view(def, stored, false);
    if (stored === null) await deleteSetting(w.tx, key);
    else await setSetting(w.tx, key, stored, w.now);
    w.audit({
      kind: 'setting_changed',
      at: w.now,
      key,
      action: stored === null ? 'unset' : 'set',
      ...(stored === null ? {} : { value: def.logValue(stored) }),
      actor_id: await w.actorId(actor),
      actor_basis: basis,
      credential_id: caller.credentialId,
    });
    // the admin key and Slack ingress decide capture coverage: log any change (docs/human-messages.md)
    await syncCoverage(w);
    return view(def, stored, false);
  });
}
