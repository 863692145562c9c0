import { describe, expect, it } from 'vitest';
import { changedSessionsFrame, liveEventFrame, sseFrame, watchedHierarchyFrame } from '../../src/http/sse-frames.js';
import type { LiveEventRecord } from '../../src/app/kernel.js';
import type { Hierarchy } from '../../src/core/hierarchy-types.js';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('SSE frames', () => {
  it('frame an event as the EventSource format reads it: every line of the data its own data line, the id last', () => {
    expect(text(sseFrame('session_created', '{"a":1}', '42'))).toBe('event: session_created\ndata: {"a":1}\nid: 42\n\n');
    expect(text(sseFrame('note', 'one\r\ntwo\rthree\nfour'))).toBe('event: note\ndata: one\ndata: two\ndata: three\ndata: four\n\n');
    expect(text(sseFrame('ready', ''))).toBe('event: ready\ndata: \n\n');
  });

  it('encode a stored event once for every subscriber: the same record gives the same bytes object', () => {
    const record = { id: 7, type: 'session_updated', payload: { session: { id: 3, title: 'a\nb' } } } as unknown as LiveEventRecord;
    const first = liveEventFrame(record);
    expect(liveEventFrame(record)).toBe(first);
    expect(text(first)).toBe(`event: session_updated\ndata: ${JSON.stringify(record.payload)}\nid: 7\n\n`);
    const other = { ...record, id: 8 };
    expect(liveEventFrame(other)).not.toBe(first);
    expect(text(liveEventFrame(other))).toContain('id: 8\n');
  });

  it("share a watched view's frame among viewers of one view, not across viewers or views", () => {
    const view = { sessionId: 1, nodes: [], edges: [] } as unknown as Hierarchy;
    const frame = watchedHierarchyFrame('hierarchy_changed', 1, view);
    expect(watchedHierarchyFrame('hierarchy_changed', 1, view)).toBe(frame);
    expect(watchedHierarchyFrame('hierarchy_changed', 2, view)).not.toBe(frame);
    expect(text(watchedHierarchyFrame('hierarchy_changed', 2, view))).toMatch(/^event: hierarchy_changed\ndata: \{"session_ids":\[2\],"session_hierarchy":/);
    expect(text(watchedHierarchyFrame('hierarchy_changed', 5, null))).toBe('event: hierarchy_changed\ndata: {"session_ids":[5],"session_hierarchy":null}\n\n');
  });

  it('share a change frame only among subscribers who may see every session it names', () => {
    const change = { sessionIds: [4, 9] };
    const all = changedSessionsFrame('hierarchy_changed', change, [4, 9]);
    expect(changedSessionsFrame('hierarchy_changed', change, [4, 9])).toBe(all);
    const some = changedSessionsFrame('hierarchy_changed', change, [9]);
    expect(text(some)).toBe('event: hierarchy_changed\ndata: {"session_ids":[9]}\n\n');
    expect(text(changedSessionsFrame('hierarchy_changed', change, [4, 9]))).toBe('event: hierarchy_changed\ndata: {"session_ids":[4,9]}\n\n');
  });
});
