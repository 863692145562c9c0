import type { Child } from 'hono/jsx';
import type { WebIdentity } from '../../app/users/index.js';
import type { WarrantError } from '../../core/errors.js';
import type { TokenRecord, UserRecord } from '../../app/users/index.js';
import { Time } from '../components/format.js';
import { CsrfField, Layout } from '../layout.js';
import { ErrorMessage } from './error-page.js';

/** `/supervisor/users` (docs/human-messages.md, docs/api.md): admin only. */

export interface UserFormValues {
  key?: string;
  displayName: string;
  email: string;
  slack: string;
  notes: string;
}

function valuesOf(u: UserRecord): UserFormValues {
  return { key: u.key, displayName: u.displayName, email: u.email ?? '', slack: u.slackUserIds.join(', '), notes: u.notes ?? '' };
}

function UserFields(props: { values: UserFormValues; idPrefix: string }) {
  const v = props.values;
  const id = (name: string) => `${props.idPrefix}-${name}`;
  return (
    <>
      <div class="form-row">
        <div class="field">
          <label for={id('name')}>Display name</label>
          <input id={id('name')} type="text" name="display_name" value={v.displayName} maxlength={200} />
        </div>
        <div class="field">
          <label for={id('email')}>Email</label>
          <input id={id('email')} type="email" name="email" value={v.email} maxlength={320} />
          <p class="hint">A linkage only: nothing is attributed from an email.</p>
        </div>
      </div>
      <div class="field">
        <label for={id('slack')}>Slack user ids</label>
        <input id={id('slack')} type="text" name="slack_user_ids" value={v.slack} placeholder="U012ABCDEF, U034GHIJKL" />
        <p class="hint">Separated by commas or spaces. A Slack id belongs to at most one person.</p>
      </div>
      <div class="field">
        <label for={id('notes')}>Notes</label>
        <textarea id={id('notes')} name="notes" maxlength={10000}>
          {v.notes}
        </textarea>
        <p class="hint">Who this person is, whose word is final. Shown beside their human messages.</p>
      </div>
    </>
  );
}

/**
 * A roster cell. It repeats its column's name, shown only where the rows stack as cards (a
 * phone) and hidden from assistive tech, which has the column header.
 */
function RosterCell(props: { column: string; children?: Child }) {
  return (
    <td>
      <span class="cell-label" aria-hidden="true">
        {props.column}
      </span>
      <span class="cell-value">{props.children}</span>
    </td>
  );
}

export function RosterPage(p: {
  identity: WebIdentity;
  csrf: string;
  users: UserRecord[];
  activeTokens: Map<number, number>;
  error?: WarrantError | null;
  values?: UserFormValues;
}) {
  return (
    <Layout title="Roster" identity={p.identity} csrf={p.csrf} nav="roster">
      <h1>Roster</h1>
      <p class="hint">The people whose words Warrant can attribute. Only admins see this page; agents never reach it.</p>
      <div class="table-scroll card">
        <table class="roster">
          <caption class="visually-hidden">Roster users</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Name</th>
              <th scope="col">Slack ids</th>
              <th scope="col">Sign-in</th>
              <th scope="col">Human tokens</th>
            </tr>
          </thead>
          <tbody>
            {p.users.map((u) => (
              <tr data-user={u.key}>
                <RosterCell column="Key">
                  <a href={`/supervisor/users/${encodeURIComponent(u.key)}`}>{u.key}</a>
                  {u.isAdmin && <span class="pill">admin</span>}
                  {u.removedAt && <span class="pill">removed</span>}
                  {' · '}
                  <a href={`/supervisor/users/${encodeURIComponent(u.key)}/caused`}>what they caused</a>
                </RosterCell>
                <RosterCell column="Name">{u.displayName}</RosterCell>
                <RosterCell column="Slack ids">{u.slackUserIds.join(', ') || '—'}</RosterCell>
                <RosterCell column="Sign-in">{u.hasPassword ? 'password set' : 'links only'}</RosterCell>
                <RosterCell column="Human tokens">{p.activeTokens.get(u.id) ?? 0} active</RosterCell>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form class="card" method="post" action="/supervisor/users" aria-labelledby="add-heading">
        <h2 id="add-heading">Add a person</h2>
        {p.error && <ErrorMessage error={p.error} />}
        <CsrfField token={p.csrf} />
        <div class="field">
          <label for="add-key">Key</label>
          <input id="add-key" type="text" name="key" required value={p.values?.key ?? ''} maxlength={64} />
          <p class="hint">Lowercase letters, digits, “.”, “_” or “-”. It can be renamed later without orphaning anything.</p>
        </div>
        <UserFields idPrefix="add" values={p.values ?? { displayName: '', email: '', slack: '', notes: '' }} />
        <button type="submit" class="primary">
          Add
        </button>
      </form>
    </Layout>
  );
}

export function UserPage(p: {
  identity: WebIdentity;
  csrf: string;
  user: UserRecord;
  tokens: TokenRecord[];
  values?: UserFormValues;
  error?: WarrantError | null;
  notice?: string | null;
  issued?: { token: string; credentialId: number } | null;
}) {
  const u = p.user;
  const base = `/supervisor/users/${encodeURIComponent(u.key)}`;
  return (
    <Layout title={`Roster: ${u.key}`} identity={p.identity} csrf={p.csrf} nav="roster">
      <p>
        <a href="/supervisor/users">← Roster</a>
      </p>
      <h1>
        {u.displayName} <span class="mono">({u.key})</span>
      </h1>
      <p>
        <a href={`${base}/caused`}>What {u.displayName} caused</a>: the sessions and events on their behalf.
      </p>
      {p.notice && (
        <p class="notice ok" role="status">
          {p.notice}
        </p>
      )}
      {p.error && <ErrorMessage error={p.error} />}
      {p.issued && (
        <div class="notice warn" role="status" data-issued-token>
          <p>
            <strong>Human token for {u.key}</strong> (credential {p.issued.credentialId}). It is shown once: copy it now. Never hand it to an agent.
          </p>
          <p class="secret">{p.issued.token}</p>
        </div>
      )}
      <form class="card" method="post" action={base} aria-labelledby="edit-heading">
        <h2 id="edit-heading">Details</h2>
        <CsrfField token={p.csrf} />
        <UserFields idPrefix="edit" values={p.values ?? valuesOf(u)} />
        <button type="submit" class="primary">
          Save
        </button>
      </form>
      <form class="card" method="post" action={`${base}/rename`} aria-labelledby="rename-heading">
        <h2 id="rename-heading">Rename the key</h2>
        <CsrfField token={p.csrf} />
        <p class="hint">
          Renaming orphans nothing: every record points at this person’s permanent actor, so it keeps naming them under the new key, and still shows the key it
          was captured under.
        </p>
        <div class="field">
          <label for="rename-key">New key</label>
          <input id="rename-key" type="text" name="new_key" required maxlength={64} />
        </div>
        <button type="submit">Rename</button>
      </form>
      <section class="card" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Human tokens</h2>
        <p class="hint">For this person’s own CLI. Acts made with one are theirs (delegated over MCP).</p>
        {p.tokens.length === 0 ? (
          <p>No human tokens.</p>
        ) : (
          <ul>
            {p.tokens.map((t) => (
              <li data-credential={String(t.id)}>
                credential {t.id} · {t.label ?? 'no label'} · issued <Time iso={t.createdAt} /> · <a href={`${base}/caused?credential=${t.id}`}>its acts</a>{' '}
                {t.revokedAt ? (
                  <span>
                    · revoked <Time iso={t.revokedAt} />
                  </span>
                ) : (
                  <form
                    method="post"
                    action={`${base}/tokens/${t.id}/revoke`}
                    class="inline"
                    hx-confirm={`Revoke credential ${t.id}? Tools using it stop working at once.`}
                    hx-post={`${base}/tokens/${t.id}/revoke`}
                    hx-target="body"
                  >
                    <CsrfField token={p.csrf} />
                    <button type="submit" class="danger">
                      Revoke
                    </button>
                  </form>
                )}
              </li>
            ))}
          </ul>
        )}
        <form method="post" action={`${base}/tokens`}>
          <CsrfField token={p.csrf} />
          <div class="form-row">
            <div class="field">
              <label for="token-label">Label</label>
              <input id="token-label" type="text" name="label" maxlength={200} placeholder="laptop CLI" />
            </div>
            <button type="submit">Issue a human token</button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="password-heading">
        <h2 id="password-heading">Web sign-in</h2>
        <p>
          {u.hasPassword ? 'A password is set.' : 'No password is set: this person signs in with one-time links.'} Passwords and links are managed on the
          server’s host: <code>warrant users password {u.key}</code>, <code>warrant users login-link {u.key}</code>.
        </p>
      </section>
    </Layout>
  );
}
