import type { SessionDetail } from '../app/sessions/session-detail.js';
import { renderHierarchyOutline } from './hierarchy-outline.js';
import { renderHumanRecord, renderHumanSummary } from './human-messages-markdown.js';
import { renderSessionStatus } from './session-markdown.js';

/**
 * `get_session` and `warrant sessions show`: status, `### Session Hierarchy` and `### Human
 * Messages` always — not behind a flag: the most important reading is the empty one (docs/human-messages.md).
 * `verbose` gives the first page of the full rendering (newest 25, uncut) instead of the summary.
 */
export function renderSessionDetail(detail: SessionDetail, options: { verbose?: boolean; pagingHint?: (cursor: string) => string } = {}): string {
  const id = detail.session.id;
  const hint = options.pagingHint ?? ((cursor: string) => `\`get_session_provenance\` with session_id ${id} and cursor ${cursor}`);
  const human =
    options.verbose || !detail.humanSummary
      ? renderHumanRecord(detail.humanMessages, hint).replace(/^## Human messages/, '### Human Messages')
      : renderHumanSummary(detail.humanSummary, id);
  return [renderSessionStatus(detail.session), '### Session Hierarchy', renderHierarchyOutline(detail.hierarchy), human].join('\n\n');
}
