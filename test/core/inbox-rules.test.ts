import { describe, expect, it } from 'vitest';
import {
  canResend,
  compareLeaseOrder,
  decideAck,
  decideQueueChange,
  decideWritten,
  effectiveState,
  INBOX_STATES,
  leasableModes,
} from '../../src/core/inbox-rules.js';
import { frameForItem, parseWarrantMessageFrame, PEER_MESSAGE_NOTICE } from '../../src/core/inbox-frames.js';

describe('inbox rules (docs/design/messages.md)', () => {
  it('leases interrupt items first, when_idle only when idle', () => {
    expect(leasableModes({ sessionIdle: false, runtimeIdle: false })).toEqual(['interrupt', 'next_turn']);
    expect(leasableModes({ sessionIdle: true, runtimeIdle: false })).toContain('when_idle');
    expect(leasableModes({ sessionIdle: false, runtimeIdle: true })).toContain('when_idle');
    const items = [
      { id: 1, mode: 'when_idle' as const },
      { id: 2, mode: 'next_turn' as const },
      { id: 3, mode: 'interrupt' as const },
      { id: 4, mode: 'next_turn' as const },
      { id: 5, mode: 'interrupt' as const },
    ];
    expect([...items].sort(compareLeaseOrder).map((i) => i.id)).toEqual([3, 5, 2, 4, 1]);
  });

  it('a lapsed lease reads as pending', () => {
    expect(effectiveState({ state: 'leased', leaseExpiresAt: '2026-01-01T00:00:00.000Z' }, '2026-01-01T00:00:00.000Z')).toBe('pending');
    expect(effectiveState({ state: 'leased', leaseExpiresAt: '2026-01-01T00:00:01.000Z' }, '2026-01-01T00:00:00.000Z')).toBe('leased');
    expect(effectiveState({ state: 'delivered', leaseExpiresAt: null }, '2026-01-01T00:00:00.000Z')).toBe('delivered');
  });

  it('queue changes: only pending items change; no-effect changes are noops; an interrupt is never downgraded', () => {
    expect(decideQueueChange({ mode: 'when_idle', state: 'pending' }, 'send_now')).toEqual({ kind: 'change', to: { mode: 'next_turn' } });
    expect(decideQueueChange({ mode: 'next_turn', state: 'pending' }, 'send_now')).toEqual({ kind: 'noop' });
    expect(decideQueueChange({ mode: 'interrupt', state: 'pending' }, 'send_now')).toEqual({ kind: 'noop' });
    expect(decideQueueChange({ mode: 'when_idle', state: 'pending' }, 'interrupt')).toEqual({ kind: 'change', to: { mode: 'interrupt' } });
    expect(decideQueueChange({ mode: 'interrupt', state: 'pending' }, 'interrupt')).toEqual({ kind: 'noop' });
    expect(decideQueueChange({ mode: 'when_idle', state: 'pending' }, 'withdraw')).toEqual({ kind: 'change', to: { state: 'withdrawn' } });
    for (const state of ['leased', 'delivered', 'withdrawn', 'expired'] as const) {
      expect(decideQueueChange({ mode: 'when_idle', state }, 'withdraw')).toEqual({ kind: 'refused', state });
    }
  });

  it('acknowledgement delivers what was handed out, once', () => {
    expect(decideAck({ state: 'leased', leaseCount: 1 })).toEqual({ kind: 'deliver' });
    expect(decideAck({ state: 'pending', leaseCount: 1 })).toEqual({ kind: 'deliver' }); // lease lapsed after hand-out
    expect(decideAck({ state: 'pending', leaseCount: 0 })).toEqual({ kind: 'rejected', reason: 'not-leased' });
    expect(decideAck({ state: 'delivered', leaseCount: 1 })).toEqual({ kind: 'already-delivered' });
    expect(decideAck({ state: 'withdrawn', leaseCount: 0 })).toEqual({ kind: 'rejected', reason: 'withdrawn' });
  });
});

describe('runtime frames (docs/design/messages.md): one place decides what a runtime receives', () => {
  const item = {
    id: 9,
    sessionId: 3,
    mode: 'next_turn' as const,
    content: 'you gave me the wrong scope',
    senderSessionId: 7,
    senderBasis: 'authenticated',
    details: {},
  };

  it('follow-ups and queued messages are the next user turn, verbatim', () => {
    expect(frameForItem({ ...item, kind: 'follow_up', content: '{"kind":"warrant-message"}' })).toEqual({ format: 'text', text: '{"kind":"warrant-message"}' });
    expect(frameForItem({ ...item, kind: 'enqueued' }).text).toBe(item.content);
  });

  it('a parent message is a warrant-message frame: peer, untrusted, coordination-only, naming both sessions', () => {
    const f = frameForItem({ ...item, kind: 'parent_message' });
    expect(f.format).toBe('warrant-message');
    const parsed = parseWarrantMessageFrame(f.text)!;
    expect(parsed).toMatchObject({
      kind: 'warrant-message',
      authority: 'peer',
      trust: 'untrusted',
      purpose: 'coordination-only',
      item_id: 9,
      item_kind: 'parent_message',
      from: { session_id: 7, basis: 'authenticated', relation: 'child' },
      to: { session_id: 3 },
      content: item.content,
      notice: PEER_MESSAGE_NOTICE,
    });
  });

  it('agent messages reuse the frame with their envelope; a control item is a machine instruction', () => {
    const f = frameForItem({ ...item, kind: 'agent_message', details: { envelope: { message_id: 'msg_1', conversation_ref: 'c1', reply_to: null } } });
    expect(parseWarrantMessageFrame(f.text)).toMatchObject({ item_kind: 'agent_message', message_id: 'msg_1', conversation_ref: 'c1', reply_to: null });
    const c = frameForItem({ ...item, kind: 'control', mode: 'interrupt', content: 'stop', details: { action: 'stop' } });
    expect(c.format).toBe('control');
    expect(JSON.parse(c.text)).toMatchObject({ kind: 'warrant-control', action: 'stop', item_id: 9 });
  });

  it('recognizes only well-formed frames', () => {
    expect(parseWarrantMessageFrame('hello')).toBeNull();
    expect(parseWarrantMessageFrame('{"kind":"warrant-message","content":"x","item_kind":"agent_message","to":{"session_id":1}}')).toBeNull(); // unmarked authority
    expect(parseWarrantMessageFrame('[1,2]')).toBeNull();
  });
});

describe('delivery into an agent: written, undelivered, retired', () => {
  const now = '2026-01-01T00:01:00.000Z';
  it('a written item reads undelivered at its deadline; an agent message deadline wins over both', () => {
    expect(effectiveState({ state: 'written', leaseExpiresAt: null, writtenDeadline: '2026-01-01T00:01:00.001Z' }, now)).toBe('written');
    expect(effectiveState({ state: 'written', leaseExpiresAt: null, writtenDeadline: now }, now)).toBe('undelivered');
    expect(effectiveState({ state: 'undelivered', leaseExpiresAt: null, writtenDeadline: now }, now)).toBe('undelivered');
    expect(effectiveState({ state: 'written', leaseExpiresAt: null, writtenDeadline: '2026-01-01T00:05:00.000Z', expiresAt: now }, now)).toBe('expired');
    expect(effectiveState({ state: 'undelivered', leaseExpiresAt: null, expiresAt: now }, now)).toBe('expired');
    expect(effectiveState({ state: 'retired', leaseExpiresAt: null, expiresAt: now }, now)).toBe('retired');
    expect(effectiveState({ state: 'delivered', leaseExpiresAt: null, writtenDeadline: now }, now)).toBe('delivered');
  });

  it('an acknowledgement never delivers what was written into the agent, nor a retired stop', () => {
    for (const state of ['written', 'undelivered', 'retired'] as const)
      expect(decideAck({ state, leaseCount: 1 })).toEqual({ kind: 'rejected', reason: state });
  });

  it('written: only what the runner was handed; control items never; repeats change nothing', () => {
    expect(decideWritten({ kind: 'follow_up', state: 'leased', leaseCount: 1 })).toEqual({ kind: 'write' });
    expect(decideWritten({ kind: 'follow_up', state: 'pending', leaseCount: 1 })).toEqual({ kind: 'write' });
    expect(decideWritten({ kind: 'follow_up', state: 'pending', leaseCount: 0 })).toEqual({ kind: 'rejected', reason: 'not-leased' });
    expect(decideWritten({ kind: 'enqueued', state: 'written', leaseCount: 1 })).toEqual({ kind: 'already-written' });
    expect(decideWritten({ kind: 'enqueued', state: 'undelivered', leaseCount: 1 })).toEqual({ kind: 'already-written' });
    expect(decideWritten({ kind: 'control', state: 'leased', leaseCount: 1 })).toEqual({ kind: 'rejected', reason: 'control' });
    for (const state of ['delivered', 'withdrawn', 'expired', 'retired'] as const) {
      expect(decideWritten({ kind: 'agent_message', state, leaseCount: 1 })).toEqual({ kind: 'rejected', reason: state });
    }
  });

  it('only an undelivered item can be resent', () => {
    expect(INBOX_STATES.filter(canResend)).toEqual(['undelivered']);
  });
});
