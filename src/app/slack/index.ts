/**
 * Slack ingress and its follow-ups.
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { slackFollowUp } from './follow-up.js';
export { authenticateSlackRequest, handleSlackEnvelope } from './ingress.js';
export type { SlackEnvelope, SlackFollowUp } from './ingress.js';
