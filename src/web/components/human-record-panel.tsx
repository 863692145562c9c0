import type { HumanMessageEntry, HumanRecord } from '../../app/human-messages/index.js';
import { AFFIRMATIVE_ABSENCE, isAffirmativeAbsence } from '../../core/human-record.js';
import { gapSentence } from '../../render/coverage-gaps.js';
import { ABSENCE_IS_AN_ANSWER, ABSENCE_IS_NOT_AN_ANSWER, COUNTS_ARE_A_FLOOR, witnessIsolationText } from '../../render/human-messages-markdown.js';
import { Time } from './format.js';

/**
 * The human-message half of the provenance panel (docs/human-messages.md, docs/api.md
 * "Session detail"): both counts always, the amber capture-gap block, the entries newest
 * first with their scope, People notes, and an empty state that says what absence means.
 * Text is rendered as text (JSX escapes it); the sentences come from the shared renderers.
 */

function Counts(props: { record: HumanRecord }) {
  const r = props.record;
  const floor = r.truncated ? 'at least ' : '';
  return (
    <p class="human-counts" data-here={String(r.counts.here)} data-elsewhere={String(r.counts.elsewhere)}>
      <strong>
        {floor}
        {r.counts.here}
      </strong>{' '}
      in this session ·{' '}
      <strong>
        {floor}
        {r.counts.elsewhere}
      </strong>{' '}
      elsewhere in the hierarchy
      {r.truncated && <span class="hint"> {COUNTS_ARE_A_FLOOR}</span>}
    </p>
  );
}

function CaptureGaps(props: { record: HumanRecord }) {
  if (props.record.gaps.length === 0) return null;
  return (
    <div class="notice warn capture-gaps" role="note" data-gaps={String(props.record.gaps.length)}>
      <strong>Capture gaps: absence here is not an answer.</strong>
      <ul>
        {props.record.gaps.map((g) => (
          <li data-gap-kind={g.kind} data-gap-channel={g.channel}>
            {gapSentence(g)}
          </li>
        ))}
      </ul>
      <p>
        Who is captured is set on the <a href="/supervisor/users">roster</a>.
      </p>
    </div>
  );
}

function EmptyState(props: { record: HumanRecord }) {
  const r = props.record;
  if (r.counts.here + r.counts.elsewhere > 0) return null;
  if (isAffirmativeAbsence(r.counts, r.gaps, r.truncated)) {
    return (
      <div class="empty-state" data-absence="affirmative">
        <p>
          <strong>{AFFIRMATIVE_ABSENCE}</strong>
        </p>
        <p class="hint">{ABSENCE_IS_AN_ANSWER}</p>
      </div>
    );
  }
  return (
    <div class="empty-state" data-absence="cannot-say">
      <p>
        <strong>{ABSENCE_IS_NOT_AN_ANSWER}</strong>
      </p>
    </div>
  );
}

function Author(props: { entry: HumanMessageEntry }) {
  const a = props.entry.author;
  const key = a.key ?? a.capturedKey;
  return (
    <span class="author">
      {a.displayName ?? key} <span class="mono">({key}</span>
      {a.key !== null && a.key !== a.capturedKey ? <span class="mono">, captured as {a.capturedKey}</span> : null}
      <span class="mono">)</span>
    </span>
  );
}

function HumanMessageItem(props: { entry: HumanMessageEntry }) {
  const e = props.entry;
  return (
    <li
      class={`human-message scope-${e.scope}${e.withdrawnAt ? ' withdrawn' : ''}`}
      data-human-message-id={String(e.id)}
      data-scope={e.scope}
      data-entry-point={e.entryPoint}
    >
      <div class="human-message-meta">
        <span class={`pill scope scope-${e.scope}`}>{e.scope}</span>
        <Author entry={e} />
        <a href={`/sessions/${e.sessionId}`}>#{e.sessionId}</a>
        <span class="mono">{e.entryPoint}</span>
        <Time iso={e.createdAt} />
        {e.witnessIsolation ? (
          <span
            class={`pill witness-isolation isolation-${e.witnessIsolation}`}
            data-witness-isolation={e.witnessIsolation}
            title={witnessIsolationText(e.witnessIsolation)}
          >
            witnessed · {e.witnessIsolation}
          </span>
        ) : null}
        {e.slackPermalink && /^https:\/\//.test(e.slackPermalink) ? (
          <a href={e.slackPermalink} rel="noopener noreferrer" target="_blank">
            in Slack
          </a>
        ) : null}
        {e.withdrawnAt && (
          <span class="pill withdrawn-pill" title="withdrawn before delivery: never delivered, still a record">
            withdrawn <Time iso={e.withdrawnAt} />
          </span>
        )}
      </div>
      <pre class="human-words">{e.content}</pre>
    </li>
  );
}

/** A page of entries, then the button for the older ones (htmx appends the next page). */
export function HumanMessagePage(props: { sessionId: number; entries: HumanMessageEntry[]; nextCursor: string | null }) {
  return (
    <>
      {props.entries.map((e) => (
        <HumanMessageItem entry={e} />
      ))}
      {props.nextCursor && (
        <li class="more">
          <button
            type="button"
            hx-get={`/sessions/${props.sessionId}/human_messages?cursor=${encodeURIComponent(props.nextCursor)}`}
            hx-target="closest li"
            hx-swap="outerHTML"
          >
            Older human messages
          </button>
        </li>
      )}
    </>
  );
}

function People(props: { record: HumanRecord }) {
  if (props.record.people.length === 0) return null;
  return (
    <>
      <h4>People</h4>
      <ul class="people-notes">
        {props.record.people.map((p) => (
          <li>
            <strong>{p.displayName}</strong>
            {p.key ? <span class="mono"> ({p.key})</span> : null}
            <pre class="human-words">{p.notes}</pre>
          </li>
        ))}
      </ul>
    </>
  );
}

export function HumanRecordSection(props: { record: HumanRecord }) {
  const r = props.record;
  return (
    <>
      <h3 id="human-messages-heading">Human messages</h3>
      <Counts record={r} />
      <CaptureGaps record={r} />
      <EmptyState record={r} />
      {r.entries.length > 0 && (
        <ol class="human-messages" aria-labelledby="human-messages-heading">
          <HumanMessagePage sessionId={r.sessionId} entries={r.entries} nextCursor={r.nextCursor} />
        </ol>
      )}
      <People record={r} />
    </>
  );
}
