/**
 * docs/concepts.md: the transition table as a pure function. `noop` means the act is
 * valid but has no effect (and records nothing); `invalid` becomes `409 invalid-transition`.
 */
export const SESSION_STATUSES = ['pending', 'running', 'idle', 'stopped', 'failed', 'archived'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** The statuses of a session that has ended (its runtime is gone): exports give it an end time. */
export const ENDED_STATUSES: ReadonlySet<string> = new Set<SessionStatus>(['stopped', 'failed', 'archived']);

export type LifecycleAct =
  'attach' | 'resume' | 'stop' | 'archive' | 'unarchive' | 'runtime-started' | 'runtime-idle' | 'runtime-exited-ok' | 'runtime-exited-fail' | 'runtime-error';

type TransitionDecision =
  | { kind: 'change'; to: SessionStatus; event: string }
  | { kind: 'stop-request' } // running work: a control item, status unchanged
  | { kind: 'noop' }
  | { kind: 'invalid' };

const ACTIVE_STATUSES: readonly SessionStatus[] = ['running', 'idle'];
export const isActive = (status: SessionStatus): boolean => ACTIVE_STATUSES.includes(status);

/**
 * @param stopRequested whether a stop is pending for the current runtime (an exit after it
 *   is a stop, whatever the code; a second stop request has no effect).
 */
export function decideTransition(status: SessionStatus, act: LifecycleAct, stopRequested = false): TransitionDecision {
  switch (act) {
    case 'attach':
      return status === 'pending' || status === 'stopped' || status === 'failed' ? { kind: 'change', to: 'running', event: 'attached' } : { kind: 'invalid' };
    case 'resume':
      if (status === 'stopped' || status === 'failed') return { kind: 'change', to: 'pending', event: 'resumed' };
      if (status === 'pending') return { kind: 'noop' };
      return { kind: 'invalid' };
    case 'stop':
      if (status === 'pending') return { kind: 'change', to: 'stopped', event: 'stopped' };
      if (isActive(status)) return stopRequested ? { kind: 'noop' } : { kind: 'stop-request' };
      if (status === 'stopped') return { kind: 'noop' };
      return { kind: 'invalid' };
    case 'archive':
      return status === 'archived' ? { kind: 'noop' } : { kind: 'change', to: 'archived', event: 'archived' };
    case 'unarchive':
      return status === 'archived' ? { kind: 'change', to: 'stopped', event: 'unarchived' } : { kind: 'noop' };
    case 'runtime-started':
      if (status === 'idle') return { kind: 'change', to: 'running', event: 'started' };
      if (status === 'running') return { kind: 'noop' };
      return { kind: 'invalid' };
    case 'runtime-idle':
      if (status === 'running') return { kind: 'change', to: 'idle', event: 'idle' };
      if (status === 'idle') return { kind: 'noop' };
      return { kind: 'invalid' };
    case 'runtime-exited-ok':
    case 'runtime-exited-fail':
    case 'runtime-error': {
      if (!isActive(status)) return { kind: 'invalid' };
      const clean = act === 'runtime-exited-ok' || (act === 'runtime-exited-fail' && stopRequested);
      return clean ? { kind: 'change', to: 'stopped', event: 'exited' } : { kind: 'change', to: 'failed', event: 'error' };
    }
  }
}
