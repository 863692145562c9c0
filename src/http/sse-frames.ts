import type { LiveEventRecord } from '../app/kernel.js';
import type { Hierarchy } from '../core/hierarchy-types.js';
import { serializeHierarchy } from '../render/hierarchy-json.js';

/**
 * Server-sent event frames as bytes, built once per event and shared by every subscriber's
 * stream. A node fans each event out to every open stream; encoding per stream cost a
 * stringify, a split and a buffer per subscriber, and the buffers (memory outside the JS heap)
 * piled up between collections with hundreds of slow readers, which is what a node must not
 * hold for them (test/reliability/suites/stalled-readers.test.ts).
 */

const encoder = new TextEncoder();

/** The bytes of one event: `event:`, one `data:` line per line of `data`, then `id:` when given. */
export function sseFrame(event: string, data: string, id?: string): Uint8Array {
  let text = `event: ${event}\n`;
  for (const line of data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  if (id !== undefined) text += `id: ${id}\n`;
  return encoder.encode(text + '\n');
}

const liveFrames = new WeakMap<LiveEventRecord, Uint8Array>();

/** A stored live event's frame, with its id (the hub hands every subscriber the same record). */
export function liveEventFrame(record: LiveEventRecord): Uint8Array {
  let frame = liveFrames.get(record);
  if (!frame) {
    frame = sseFrame(record.type, JSON.stringify(record.payload), String(record.id));
    liveFrames.set(record, frame);
  }
  return frame;
}

/** Frames of one refreshed view by viewer (the refresher hands viewers of one view the same hierarchy). */
const viewFrames = new WeakMap<Hierarchy, Map<number, Uint8Array>>();

/** `hierarchy_changed` for a watched hierarchy: the viewer's id and its recomputed view, or null when it is gone. */
export function watchedHierarchyFrame(event: string, viewerId: number, hierarchy: Hierarchy | null): Uint8Array {
  const build = () => sseFrame(event, JSON.stringify({ session_ids: [viewerId], session_hierarchy: hierarchy ? serializeHierarchy(hierarchy) : null }));
  if (!hierarchy) return build();
  let byViewer = viewFrames.get(hierarchy);
  if (!byViewer) viewFrames.set(hierarchy, (byViewer = new Map<number, Uint8Array>()));
  let frame = byViewer.get(viewerId);
  if (!frame) byViewer.set(viewerId, (frame = build()));
  return frame;
}

const changeFrames = new WeakMap<object, Uint8Array>();

/**
 * `hierarchy_changed` naming the sessions of one change a subscriber may see; when it may see
 * all of them (the common case) the frame is the one shared by every such subscriber.
 */
export function changedSessionsFrame(event: string, change: { sessionIds: readonly number[] }, visibleIds: readonly number[]): Uint8Array {
  const build = () => sseFrame(event, JSON.stringify({ session_ids: visibleIds }));
  if (visibleIds.length !== change.sessionIds.length) return build();
  let frame = changeFrames.get(change);
  if (!frame) changeFrames.set(change, (frame = build()));
  return frame;
}
