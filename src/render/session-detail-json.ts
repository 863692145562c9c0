import type { SessionDetail } from '../app/sessions/session-detail.js';
import { serializeSession } from './session-json.js';

export function serializeSessionDetail(detail: SessionDetail): Record<string, unknown> {
  return { session: serializeSession(detail.session) };
}
