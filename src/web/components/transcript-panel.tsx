import type { TranscriptRecordView } from '../../app/sessions/index.js';
import { Time } from './format.js';

/**
 * The session page's transcript (docs/design/agent-runtimes.md "Transcripts"): the latest
 * records, oldest first, one line each; a record's JSON, pretty-printed, opens on demand.
 * Every bound is stated: how many older records there are, and where a long record is cut.
 */
export const TRANSCRIPT_PAGE = 50;
/** characters of a record on its one line */
const TRANSCRIPT_PREVIEW = 200;
/** characters of a record shown opened; the full line is in the API */
const TRANSCRIPT_OPENED_MAX = 20_000;

export interface TranscriptTail {
  sessionId: number;
  records: TranscriptRecordView[];
  older: number;
  olderCursor: string | null;
}

const cut = (text: string, max: number): { text: string; rest: number } => {
  const chars = [...text];
  return chars.length <= max ? { text, rest: 0 } : { text: chars.slice(0, max).join(''), rest: chars.length - max };
};

function RecordItem(props: { sessionId: number; record: TranscriptRecordView }) {
  const r = props.record;
  const line = cut(r.line.replace(/\s+/g, ' ').trim(), TRANSCRIPT_PREVIEW);
  const opened = cut(r.record !== null && typeof r.record === 'object' ? JSON.stringify(r.record, null, 2) : r.line, TRANSCRIPT_OPENED_MAX);
  return (
    <li class="transcript-item" data-record-id={String(r.id)} data-offset={r.offset === null ? '' : String(r.offset)}>
      <details>
        <summary>
          <span class="transcript-meta">
            {r.conversationId !== null && (
              <span class="mono" title={`conversation ${r.conversationId}`}>
                {r.conversationId.slice(0, 12)}
              </span>
            )}
            {r.offset !== null && <span class="mono"> @{r.offset}</span>} <Time iso={r.createdAt} />
            {r.restarted && (
              <span class="pill" title="the transcript file was truncated or rotated: it starts over here">
                {' '}
                file restarted
              </span>
            )}
          </span>{' '}
          <code class="transcript-line">
            {line.text === '' ? '(empty line)' : line.text}
            {line.rest > 0 ? ` … (${line.rest.toLocaleString('en-US')} more characters)` : ''}
          </code>
        </summary>
        <pre class="transcript-record">{opened.text}</pre>
        {opened.rest > 0 && (
          <p class="hint">
            Cut here: {opened.rest.toLocaleString('en-US')} more characters. The whole line:{' '}
            <span class="mono">GET /api/v1/sessions/{props.sessionId}/transcript</span>.
          </p>
        )}
      </details>
    </li>
  );
}

/** A page of records, oldest first, under the button for the older ones (htmx puts the older page in its place). */
export function TranscriptRecords(props: TranscriptTail) {
  return (
    <>
      {props.olderCursor && (
        <li class="more">
          <button
            type="button"
            hx-get={`/sessions/${props.sessionId}/transcript?before=${encodeURIComponent(props.olderCursor)}`}
            hx-target="closest li"
            hx-swap="outerHTML"
          >
            Older records: {props.older.toLocaleString('en-US')} — show {Math.min(props.older, TRANSCRIPT_PAGE)} more
          </button>
        </li>
      )}
      {props.records.map((r) => (
        <RecordItem sessionId={props.sessionId} record={r} />
      ))}
    </>
  );
}

export function TranscriptSection(props: { tail: TranscriptTail }) {
  const t = props.tail;
  return (
    <section id="transcript" class="card" aria-labelledby="transcript-heading">
      <h2 id="transcript-heading">Transcript</h2>
      {t.records.length === 0 ? (
        <p class="hint">No transcript records: this session's runtime has appended none.</p>
      ) : (
        <>
          <p class="hint">
            {t.older > 0
              ? `The latest ${t.records.length} of ${(t.older + t.records.length).toLocaleString('en-US')} records`
              : `All ${t.records.length} record${t.records.length === 1 ? '' : 's'}`}
            , oldest first, one line each; open one for its JSON.
          </p>
          <ol class="transcript" aria-labelledby="transcript-heading">
            <TranscriptRecords {...t} />
          </ol>
        </>
      )}
    </section>
  );
}
