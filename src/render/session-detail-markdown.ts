import type { SessionDetail } from '../app/sessions/session-detail.js';
import { renderHierarchyOutline } from './hierarchy-outline.js';
import { renderSessionStatus } from './session-markdown.js';

/** `get_session` and `warrant sessions show`: one rendering for every text surface. */
export function renderSessionDetail(detail: SessionDetail): string {
  return [renderSessionStatus(detail.session), '', '### Session Hierarchy', '', renderHierarchyOutline(detail.hierarchy)].join('\n');
}
