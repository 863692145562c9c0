import type { DeploymentMode } from '../../app/kernel.js';
import type { UserRecord } from '../../app/users/index.js';
import type { WarrantError } from '../../core/errors.js';
import { CsrfField, Layout } from '../layout.js';
import { ErrorMessage } from './error-page.js';

/** Sign-in, link confirmation and first-run pages (docs/concepts.md). */

/** Shown to anyone who reaches the port: it names nobody (not even the admin's key). */
export function SignInPage(props: { mode: DeploymentMode; csrf: string; next: string; error?: WarrantError | null; key?: string }) {
  const single = props.mode === 'single-admin';
  return (
    <Layout title="Sign in" identity={null} csrf="">
      <div class="narrow">
        <h1>Sign in to Warrant</h1>
        {props.error && <ErrorMessage error={props.error} />}
        <div class="card">
          {single ? (
            <>
              <p>
                This server runs in <strong>single-admin mode</strong>: the web UI signs in its admin only.
              </p>
              <p>
                Open the one-time sign-in link that <code>warrant serve</code> printed when it started, or print a new one on the server’s host:
              </p>
              <pre class="secret">warrant users login-link</pre>
            </>
          ) : (
            <p>
              Every person on the roster signs in with a password (an admin sets it: <code>warrant users password &lt;key&gt;</code>) or a one-time link (
              <code>warrant users login-link &lt;key&gt;</code>).
            </p>
          )}
        </div>
        <form class="card" method="post" action="/sign-in">
          <h2>{single ? 'Or sign in with the admin’s password' : 'Sign in with your password'}</h2>
          <CsrfField token={props.csrf} />
          <input type="hidden" name="next" value={props.next} />
          <div class="field">
            <label for="sign-in-key">Roster key</label>
            <input id="sign-in-key" type="text" name="key" autocomplete="username" required value={props.key ?? ''} />
          </div>
          <div class="field">
            <label for="sign-in-password">Password</label>
            <input id="sign-in-password" type="password" name="password" autocomplete="current-password" required />
          </div>
          <button type="submit" class="primary">
            Sign in
          </button>
        </form>
      </div>
    </Layout>
  );
}

export function LinkConfirmPage(props: { user: UserRecord; expiresAt: string; secret: string; csrf: string; next: string }) {
  return (
    <Layout title="Sign in" identity={null} csrf="">
      <div class="narrow">
        <h1>Sign in as {props.user.displayName}</h1>
        <form class="card" method="post" action="/sign-in/link">
          <p>
            This one-time link signs this browser in as <strong>{props.user.displayName}</strong> (<code>{props.user.key}</code>). Everything you do here is
            recorded as that person’s act.
          </p>
          <CsrfField token={props.csrf} />
          <input type="hidden" name="link" value={props.secret} />
          <input type="hidden" name="next" value={props.next} />
          <button type="submit" class="primary">
            Sign in
          </button>
          <p class="hint">The link works once and expires {props.expiresAt.replace('T', ' ').slice(0, 16)} UTC.</p>
        </form>
      </div>
    </Layout>
  );
}

export function SetupPage(props: { mode: DeploymentMode; csrf: string; error?: WarrantError | null; values?: { key: string; displayName: string } }) {
  return (
    <Layout title="First run" identity={null} csrf="">
      <div class="narrow">
        <h1>Set up Warrant</h1>
        <p>The roster is empty. Create the admin: the person whose sign-in the web UI records as a human’s act.</p>
        {props.error && <ErrorMessage error={props.error} />}
        <form class="card" method="post" action="/setup">
          <CsrfField token={props.csrf} />
          <div class="field">
            <label for="setup-code">Setup code</label>
            <input id="setup-code" type="text" name="code" required autocomplete="one-time-code" spellcheck={false} />
            <p class="hint">
              Printed on the server’s console when <code>warrant serve</code> started. It proves you can read the server’s console, not only reach its port.
            </p>
          </div>
          <div class="field">
            <label for="setup-key">Your roster key</label>
            <input
              id="setup-key"
              type="text"
              name="key"
              required
              pattern="[a-z0-9][a-z0-9._\-]{0,63}"
              value={props.values?.key ?? ''}
              autocomplete="username"
            />
            <p class="hint">
              Lowercase letters, digits, “.”, “_” or “-”, like <code>alice</code>.
            </p>
          </div>
          <div class="field">
            <label for="setup-name">Display name</label>
            <input id="setup-name" type="text" name="display_name" value={props.values?.displayName ?? ''} autocomplete="name" />
          </div>
          <div class="field">
            <label for="setup-password">Password {props.mode === 'single-admin' ? '(optional)' : '(recommended)'}</label>
            <input id="setup-password" type="password" name="password" autocomplete="new-password" minlength={10} />
            <p class="hint">
              At least 10 characters. Without one, sign in with one-time links (<code>warrant users login-link</code>).
            </p>
          </div>
          <button type="submit" class="primary">
            Create the admin and sign in
          </button>
        </form>
      </div>
    </Layout>
  );
}
