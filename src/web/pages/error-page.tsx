import type { Context } from 'hono';
import type { WebIdentity } from '../../app/users/index.js';
import type { WarrantError } from '../../core/errors.js';
import { Layout } from '../layout.js';
import { htmlFragment, htmlPage } from '../render.js';

/** One mapping of a refusal into HTML: the token and the sentence, with the REST status. */
export function ErrorMessage(props: { error: WarrantError }) {
  return (
    <div class="notice error" role="alert" data-error={props.error.token}>
      <strong>{props.error.token}</strong>: {props.error.message}
    </div>
  );
}

export function renderErrorFragment(c: Context, error: WarrantError): Promise<Response> {
  return htmlFragment(c, <ErrorMessage error={error} />, error.status);
}

export function renderErrorPage(c: Context, error: WarrantError, identity: WebIdentity | null, csrf: string): Promise<Response> {
  const title = error.status === 404 ? 'Not found' : error.status === 403 ? 'Not allowed' : 'Something went wrong';
  return htmlPage(
    c,
    <Layout title={title} identity={identity} csrf={csrf}>
      <div class="narrow">
        <h1>{title}</h1>
        <ErrorMessage error={error} />
        <p>
          <a href="/">Back to the sessions</a>
        </p>
      </div>
    </Layout>,
    error.status,
  );
}
