import { describe, expect, it } from 'vitest';
import { decideTransition, SESSION_STATUSES, type LifecycleAct, type SessionStatus } from '../../src/core/lifecycle.js';
import { planArchiveCascade } from '../../src/core/archive-cascade.js';

describe('the lifecycle table (docs/design/sessions.md) as a pure function', () => {
  const expected: Record<LifecycleAct, Partial<Record<SessionStatus, string>>> = {
    attach: { pending: 'running', stopped: 'running', failed: 'running' },
    resume: { stopped: 'pending', failed: 'pending', pending: 'noop' },
    stop: { pending: 'stopped', running: 'stop-request', idle: 'stop-request', stopped: 'noop' },
    archive: { pending: 'archived', running: 'archived', idle: 'archived', stopped: 'archived', failed: 'archived', archived: 'noop' },
    unarchive: { archived: 'stopped', pending: 'noop', running: 'noop', idle: 'noop', stopped: 'noop', failed: 'noop' },
    'runtime-started': { idle: 'running', running: 'noop' },
    'runtime-idle': { running: 'idle', idle: 'noop' },
    'runtime-exited-ok': { running: 'stopped', idle: 'stopped' },
    'runtime-exited-fail': { running: 'failed', idle: 'failed' },
    'runtime-error': { running: 'failed', idle: 'failed' },
  };
  for (const [act, row] of Object.entries(expected) as [LifecycleAct, Partial<Record<SessionStatus, string>>][]) {
    for (const status of SESSION_STATUSES) {
      const want = row[status] ?? 'invalid';
      it(`${act} from ${status} → ${want}`, () => {
        const d = decideTransition(status, act);
        const got = d.kind === 'change' ? d.to : d.kind;
        expect(got).toBe(want);
      });
    }
  }
  it('an exit after a stop request is a stop whatever the code; a second stop request has no effect', () => {
    expect(decideTransition('running', 'runtime-exited-fail', true)).toEqual({ kind: 'change', to: 'stopped', event: 'exited' });
    expect(decideTransition('running', 'runtime-error', true)).toEqual({ kind: 'change', to: 'failed', event: 'error' });
    expect(decideTransition('running', 'stop', true)).toEqual({ kind: 'noop' });
  });
  it('names the events of the table', () => {
    expect(decideTransition('pending', 'attach')).toMatchObject({ event: 'attached' });
    expect(decideTransition('stopped', 'resume')).toMatchObject({ event: 'resumed' });
    expect(decideTransition('pending', 'stop')).toMatchObject({ event: 'stopped' });
    expect(decideTransition('archived', 'unarchive')).toMatchObject({ event: 'unarchived' });
    expect(decideTransition('running', 'runtime-exited-ok')).toMatchObject({ event: 'exited' });
    expect(decideTransition('idle', 'runtime-exited-fail')).toMatchObject({ event: 'error' });
    expect(decideTransition('idle', 'runtime-started')).toMatchObject({ event: 'started' });
    expect(decideTransition('running', 'runtime-idle')).toMatchObject({ event: 'idle' });
  });
});

describe('the archive cascade plan (docs/design/sessions.md)', () => {
  it('archives bottom-up and never archives a parent over an active child', () => {
    const plan = planArchiveCascade(1, [
      { id: 1, parentId: null, status: 'stopped' },
      { id: 2, parentId: 1, status: 'stopped' },
      { id: 3, parentId: 2, status: 'running' },
      { id: 4, parentId: 1, status: 'failed' },
      { id: 5, parentId: 4, status: 'archived' },
      { id: 6, parentId: 4, status: 'pending' },
    ]);
    expect(plan.archive).toEqual([6, 4]);
    expect(plan.skipped).toEqual([
      { id: 3, reason: 'active' },
      { id: 2, reason: 'active-descendant' },
      { id: 1, reason: 'active-descendant' },
    ]);
  });
  it('skips the requested session itself when it is active', () => {
    expect(planArchiveCascade(1, [{ id: 1, parentId: null, status: 'idle' }])).toEqual({ archive: [], skipped: [{ id: 1, reason: 'active' }] });
  });
  it('lists already archived sessions in neither list', () => {
    expect(
      planArchiveCascade(1, [
        { id: 1, parentId: null, status: 'archived' },
        { id: 2, parentId: 1, status: 'archived' },
      ]),
    ).toEqual({ archive: [], skipped: [] });
  });
});
