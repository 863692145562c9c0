import type { SessionView } from '../../app/sessions/index.js';
import { isActive } from '../../core/lifecycle.js';
import { CsrfField } from '../layout.js';
import { Actor, AgentRootPill, Basis, GenesisPill, Status, Time, sessionTitle } from './format.js';

/**
 * The Status section of a session page (docs/api.md): title, ids, genesis · class, owner, creator
 * and parent with their bases, and the lifecycle actions valid in this state.
 */
function ActionForm(props: { id: number; act: string; label: string; confirm: string; csrf: string; danger?: boolean }) {
  const url = `/sessions/${props.id}/${props.act}`;
  return (
    <form method="post" action={url} hx-post={url} hx-target="#action-result" hx-swap="innerHTML" hx-confirm={props.confirm}>
      <CsrfField token={props.csrf} />
      <button type="submit" class={props.danger ? 'danger' : ''}>
        {props.label}
      </button>
    </form>
  );
}

function SessionActions(props: { session: SessionView; csrf: string }) {
  const s = props.session;
  const id = s.id;
  return (
    <div class="actions" aria-label="Actions">
      {(s.status === 'pending' || isActive(s.status)) && (
        <ActionForm
          id={id}
          act="stop"
          label="Stop"
          csrf={props.csrf}
          confirm={
            s.status === 'pending'
              ? `Stop #${id}? It has not started; it becomes stopped.`
              : `Ask the runtime of #${id} to stop? It stays ${s.status} until the runtime exits.`
          }
        />
      )}
      {(s.status === 'stopped' || s.status === 'failed') && (
        <ActionForm id={id} act="resume" label="Resume" csrf={props.csrf} confirm={`Resume #${id}? It becomes pending until a runtime attaches.`} />
      )}
      {s.status !== 'archived' && (
        <ActionForm
          id={id}
          act="archive"
          label="Archive"
          csrf={props.csrf}
          confirm={`Archive #${id} and every session spawned below it? Running or idle sessions are skipped.`}
        />
      )}
      {s.status === 'archived' && <ActionForm id={id} act="unarchive" label="Unarchive" csrf={props.csrf} confirm={`Unarchive #${id}? It becomes stopped.`} />}
      <a class="button danger" href={`/sessions/${id}/delete`}>
        Delete…
      </a>
    </div>
  );
}

export function SessionStatusSection(props: { session: SessionView; csrf: string }) {
  const s = props.session;
  const legacyParent = s.parentBasis === 'legacy' && s.lineageParentId !== null;
  return (
    <section
      id="session-status"
      class="card"
      aria-labelledby="session-title"
      data-watch-sessions={String(s.id)}
      hx-get={`/sessions/${s.id}/status`}
      hx-trigger="warrant:watched delay:150ms"
      hx-swap="outerHTML"
    >
      <div class="status-head">
        <h1 id="session-title">{sessionTitle(s.title)}</h1>
        <Status status={s.status} />
      </div>
      <dl class="facts">
        <dt>Ids</dt>
        <dd>
          <span class="mono">#{s.id}</span> · <span class="mono">{s.uid}</span>
        </dd>
        <dt>Genesis · class</dt>
        <dd>
          <GenesisPill genesis={s.genesis} schedulingClass={s.schedulingClass} />
        </dd>
        <dt>Agent</dt>
        <dd>
          {s.agentRoot ? <AgentRootPill agentRoot={s.agentRoot} /> : 'not given'}
          {s.model ? ` · model ${s.model}` : ''}
          {s.provider ? ` · ${s.provider}` : ''}
        </dd>
        <dt>Owner</dt>
        <dd>{s.owner ?? 'none (unowned)'}</dd>
        <dt>Creator</dt>
        <dd>
          <Actor actor={s.creator} /> {s.creator && <Basis basis={s.creatorBasis} />}
        </dd>
        <dt>On behalf of</dt>
        <dd>
          <Actor actor={s.cause} /> {s.cause && <Basis basis={s.causeBasis} />}
        </dd>
        <dt>Parent</dt>
        <dd>
          {s.lineageParentId === null ? (
            'none recorded'
          ) : (
            <>
              <a href={`/sessions/${s.lineageParentId}`}>#{s.lineageParentId}</a> <Basis basis={s.parentBasis} />
              {legacyParent && <span class="hint"> derived from the legacy router key in its metadata</span>}
            </>
          )}
        </dd>
        <dt>Runtime</dt>
        <dd>
          {s.activation === 0 ? 'never attached' : `attached ${s.activation} time${s.activation === 1 ? '' : 's'}`}
          {s.runtimeParentId !== null && (
            <span data-runtime-parent={String(s.runtimeParentId)}>
              {' '}
              · a {s.runtimeOrigin === 'nested-agent' ? 'nested agent' : 'subagent'} in the runtime of{' '}
              <a href={`/sessions/${s.runtimeParentId}`}>#{s.runtimeParentId}</a>, which reports for it
            </span>
          )}
        </dd>
        <dt>Created</dt>
        <dd>
          <Time iso={s.createdAt} /> · updated <Time iso={s.updatedAt} />
        </dd>
      </dl>
      <SessionActions session={s} csrf={props.csrf} />
    </section>
  );
}
