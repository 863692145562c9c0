import type { SessionDetail } from '../app/sessions/session-detail.js';
import { serializeHierarchy } from './hierarchy-json.js';
import { serializeSession } from './session-json.js';

export function serializeSessionDetail(detail: SessionDetail): Record<string, unknown> {
  return { session: serializeSession(detail.session), session_hierarchy: serializeHierarchy(detail.hierarchy) };
}
