import type { Command } from 'commander';
import type { UserRecord } from '../../app/users/index.js';
import { CliExit, EXIT_USAGE, printJson, printText } from '../output.js';
import type { StoreFlags } from '../store-access.js';

// Store-opening modules load only when an admin command runs (keeps `warrant --help` fast).
const roster = () => import('../../app/users/index.js');
const withStore: typeof import('../store-access.js').withStore = async (flags, fn) => (await import('../store-access.js')).withStore(flags, fn);

function storeOptions(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'the data dir (default ./.warrant or $WARRANT_DATA_DIR)')
    .option('--database-url <url>', 'PostgreSQL instead of SQLite (or $DATABASE_URL)');
}

function userJson(u: UserRecord): Record<string, unknown> {
  return {
    key: u.key,
    display_name: u.displayName,
    email: u.email,
    slack_user_ids: u.slackUserIds,
    notes: u.notes,
    is_admin: u.isAdmin,
    removed_at: u.removedAt,
    created_at: u.createdAt,
    updated_at: u.updatedAt,
  };
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Reads a password: the first line of stdin, typed without echo on a terminal. */
async function readPassword(): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY) {
    process.stderr.write('Password (not shown): ');
    stdin.setRawMode(true);
  }
  const chunks: Buffer[] = [];
  const password = await new Promise<string>((resolve) => {
    const done = () => {
      stdin.removeAllListeners('data');
      if (stdin.isTTY) {
        stdin.setRawMode(false);
        process.stderr.write('\n');
      }
      stdin.pause();
      resolve(
        Buffer.concat(chunks)
          .toString('utf8')
          .split(/\r?\n|\r/)[0] ?? '',
      );
    };
    stdin.on('data', (d: Buffer) => {
      if (stdin.isTTY && d.includes(3)) process.exit(130); // Ctrl-C
      chunks.push(d);
      if (stdin.isTTY ? /[\r\n]/.test(d.toString()) : false) done();
    });
    stdin.once('end', done);
    stdin.resume();
  });
  if (!password) throw new CliExit(EXIT_USAGE, 'error: no password given (pipe it on stdin, or type it at the prompt).');
  return password;
}

/** `warrant users …`: the roster and human tokens, straight against the store (admin). */
export function registerUserCommands(program: Command): void {
  const users = program.command('users').description('the roster of humans (admin: opens the store directly)');

  storeOptions(users.command('list').description('list roster users').option('--json', 'print JSON')).action(async (opts: StoreFlags & { json?: boolean }) => {
    await withStore(opts, async (ctx, admin) => {
      const rows = await (await roster()).listUsers(ctx, admin);
      if (opts.json) return printJson({ users: rows.map(userJson) });
      if (rows.length === 0) return printText('No roster users. Add one with `warrant users add <key>`.');
      printText(
        rows
          .map(
            (u) =>
              `${u.key}\t${u.displayName}${u.isAdmin ? '\t(admin)' : ''}${u.slackUserIds.length ? `\tslack: ${u.slackUserIds.join(',')}` : ''}${u.removedAt ? '\t(removed)' : ''}`,
          )
          .join('\n'),
      );
    });
  });

  storeOptions(
    users
      .command('add <key>')
      .description('add a roster user')
      .option('--name <display name>', 'display name')
      .option('--email <email>', 'email (a linkage, never a capture path)')
      .option('--slack <id>', 'a Slack user id (repeatable)', collect)
      .option('--notes <text>', 'who this person is, whose word is final')
      .option('--admin', 'make this user an admin')
      .option('--json', 'print JSON'),
  ).action(async (key: string, opts: StoreFlags & { name?: string; email?: string; slack?: string[]; notes?: string; admin?: boolean; json?: boolean }) => {
    await withStore(opts, async (ctx, admin) => {
      const user = await (
        await roster()
      ).addUser(ctx, admin, {
        key,
        ...(opts.name ? { displayName: opts.name } : {}),
        email: opts.email ?? null,
        slackUserIds: opts.slack ?? [],
        notes: opts.notes ?? null,
        isAdmin: opts.admin ?? false,
      });
      if (opts.json) return printJson({ user: userJson(user) });
      printText(`Added ${user.key} (${user.displayName})${user.isAdmin ? ' as an admin' : ''}.`);
    });
  });

  storeOptions(
    users
      .command('edit <key>')
      .description('edit a roster user')
      .option('--name <display name>', 'display name')
      .option('--email <email>', 'email')
      .option('--slack <id>', 'the Slack user ids (repeatable; replaces the list)', collect)
      .option('--clear-slack', 'remove every Slack id')
      .option('--notes <text>', 'notes')
      .option('--admin <yes|no>', 'admin or not')
      .option('--json', 'print JSON'),
  ).action(
    async (
      key: string,
      opts: StoreFlags & { name?: string; email?: string; slack?: string[]; clearSlack?: boolean; notes?: string; admin?: string; json?: boolean },
    ) => {
      await withStore(opts, async (ctx, admin) => {
        const user = await (
          await roster()
        ).editUser(ctx, admin, key, {
          ...(opts.name !== undefined ? { displayName: opts.name } : {}),
          ...(opts.email !== undefined ? { email: opts.email } : {}),
          ...(opts.clearSlack ? { slackUserIds: [] } : opts.slack ? { slackUserIds: opts.slack } : {}),
          ...(opts.notes !== undefined ? { notes: opts.notes } : {}),
          ...(opts.admin !== undefined ? { isAdmin: opts.admin === 'yes' || opts.admin === 'true' } : {}),
        });
        if (opts.json) return printJson({ user: userJson(user) });
        printText(`Updated ${user.key}.`);
      });
    },
  );

  storeOptions(
    users.command('rename <key> <new-key>').description('rename a roster key (records keep naming the person)').option('--json', 'print JSON'),
  ).action(async (key: string, newKey: string, opts: StoreFlags & { json?: boolean }) => {
    await withStore(opts, async (ctx, admin) => {
      const user = await (await roster()).renameUser(ctx, admin, key, newKey);
      if (opts.json) return printJson({ user: userJson(user) });
      printText(`Renamed ${key} to ${user.key}. Nothing is orphaned: records point at the person, and keep the key they were captured under.`);
    });
  });

  storeOptions(
    users
      .command('login-link [key]')
      .description('print a one-time web UI sign-in link (default: the single admin)')
      .option('--ttl <minutes>', 'minutes the link stays valid', '60')
      .option('--url <url>', 'the server base URL (default $WARRANT_URL or http://127.0.0.1:7420)')
      .option('--json', 'print JSON'),
  ).action(async (key: string | undefined, opts: StoreFlags & { ttl: string; url?: string; json?: boolean }) => {
    const minutes = Number(opts.ttl);
    if (!Number.isFinite(minutes) || minutes < 1 || minutes > 7 * 24 * 60) throw new CliExit(EXIT_USAGE, 'error: --ttl: minutes between 1 and 10080.');
    await withStore(opts, async (ctx, admin) => {
      const { issueSignInLink } = await import('../../app/users/index.js');
      const { signInLinkUrl } = await import('../../web/banner.js');
      const link = await issueSignInLink(ctx, admin, key ?? null, { issuedVia: 'cli', ttlMs: minutes * 60_000 });
      const url = signInLinkUrl(opts.url ?? process.env.WARRANT_URL ?? 'http://127.0.0.1:7420', link.secret);
      if (opts.json) return printJson({ url, user: link.user.key, expires_at: link.expiresAt });
      printText(`One-time sign-in link for ${link.user.key} (works once; expires ${link.expiresAt}):\n${url}`);
    });
  });

  storeOptions(
    users
      .command('password <key>')
      .description("set a roster human's web UI password (read from stdin; --clear removes it)")
      .option('--clear', 'remove the password (the person signs in with one-time links)'),
  ).action(async (key: string, opts: StoreFlags & { clear?: boolean }) => {
    const password = opts.clear ? null : await readPassword();
    await withStore(opts, async (ctx, admin) => {
      const { setUserPassword } = await import('../../app/users/index.js');
      const user = await setUserPassword(ctx, admin, key, password);
      printText(password === null ? `Removed the web password of ${user.key}.` : `Set the web password of ${user.key}.`);
    });
  });

  const tokens = users.command('tokens').description("a roster user's human tokens");
  storeOptions(
    tokens.command('issue <key>').description('issue a human token (shown once)').option('--label <label>', 'a label').option('--json', 'print JSON'),
  ).action(async (key: string, opts: StoreFlags & { label?: string; json?: boolean }) => {
    await withStore(opts, async (ctx, admin) => {
      const issued = await (await roster()).issueHumanToken(ctx, admin, key, opts.label);
      if (opts.json) return printJson({ token: issued.token, credential_id: issued.credentialId });
      printText(`Human token for ${key} (credential ${issued.credentialId}; shown once — never hand it to an agent):\n${issued.token}`);
    });
  });
  storeOptions(tokens.command('list [key]').description('list human tokens (never their secrets)').option('--json', 'print JSON')).action(
    async (key: string | undefined, opts: StoreFlags & { json?: boolean }) => {
      await withStore(opts, async (ctx, admin) => {
        const rows = await (await roster()).listIssuedTokens(ctx, admin, { kind: 'human', ...(key ? { userKey: key } : {}) });
        const out = rows.map((t) => ({ credential_id: t.id, user: t.userKey, label: t.label, created_at: t.createdAt, revoked_at: t.revokedAt }));
        if (opts.json) return printJson({ tokens: out });
        printText(
          out.length === 0
            ? 'No human tokens.'
            : out.map((t) => `${t.credential_id}\t${t.user}\t${t.label ?? ''}\t${t.revoked_at ? 'revoked ' + t.revoked_at : 'active'}`).join('\n'),
        );
      });
    },
  );
  storeOptions(tokens.command('revoke <credential-id>').description('revoke a human token')).action(async (id: string, opts: StoreFlags) => {
    await withStore(opts, async (ctx, admin) => {
      await (await roster()).revokeIssuedToken(ctx, admin, Number(id));
      printText(`Revoked credential ${id}.`);
    });
  });

  const keys = program.command('keys').description('fleet keys and integration keys (admin: opens the store directly)');
  storeOptions(
    keys.command('issue-client <name>').description('issue an integration key for a named operator client (shown once)').option('--json', 'print JSON'),
  ).action(async (name: string, opts: StoreFlags & { json?: boolean }) => {
    await withStore(opts, async (ctx, admin) => {
      const issued = await (await roster()).issueClientKey(ctx, admin, name);
      if (opts.json) return printJson({ token: issued.token, credential_id: issued.credentialId });
      printText(`Integration key for client ${name} (credential ${issued.credentialId}; shown once):\n${issued.token}`);
    });
  });
  storeOptions(
    keys
      .command('issue-fleet')
      .description('issue another fleet key (shown once)')
      .option('--label <label>', 'a label', 'issued by the CLI')
      .option('--json', 'print JSON'),
  ).action(async (opts: StoreFlags & { label: string; json?: boolean }) => {
    await withStore(opts, async (ctx, admin) => {
      const issued = await (await roster()).issueFleetKey(ctx, admin, opts.label);
      if (opts.json) return printJson({ token: issued.token, credential_id: issued.credentialId });
      printText(`Fleet key (credential ${issued.credentialId}; shown once — infrastructure only, never an agent):\n${issued.token}`);
    });
  });
  storeOptions(keys.command('list').description('list fleet and integration keys (never their secrets)').option('--json', 'print JSON')).action(
    async (opts: StoreFlags & { json?: boolean }) => {
      await withStore(opts, async (ctx, admin) => {
        const rows = [
          ...(await (await roster()).listIssuedTokens(ctx, admin, { kind: 'fleet' })),
          ...(await (await roster()).listIssuedTokens(ctx, admin, { kind: 'client' })),
        ];
        const out = rows.map((t) => ({
          credential_id: t.id,
          kind: t.kind,
          client: t.clientName,
          label: t.label,
          created_at: t.createdAt,
          revoked_at: t.revokedAt,
        }));
        if (opts.json) return printJson({ keys: out });
        printText(out.map((t) => `${t.credential_id}\t${t.kind}\t${t.client ?? ''}\t${t.label ?? ''}\t${t.revoked_at ? 'revoked' : 'active'}`).join('\n'));
      });
    },
  );
  storeOptions(keys.command('revoke <credential-id>').description('revoke a fleet or integration key')).action(async (id: string, opts: StoreFlags) => {
    await withStore(opts, async (ctx, admin) => {
      await (await roster()).revokeIssuedToken(ctx, admin, Number(id));
      printText(`Revoked credential ${id}.`);
    });
  });
}
