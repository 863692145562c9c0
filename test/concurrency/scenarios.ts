import { expect } from 'vitest';
import type { SeamPoint } from '../../src/app/context.js';
import type { Harness } from '../helpers/harness.js';
import { eventsOf } from '../helpers/events.js';

/**
 * docs/design/attribution.md, docs/design/quality.md "Concurrency at a barrier": callers read the session, wait at a barrier, then
 * all make the same change — exactly one event. One table of scenarios, raced on PostgreSQL
 * (a real pool, a seam inside the transaction) and on SQLite (separate processes).
 */
export interface RaceRequest {
  method: string;
  path: string;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RaceResponse {
  status: number;
  body: any;
}

export interface Scenario {
  name: string;
  racers: number;
  /** where the use case reads before it writes (the PostgreSQL seam) */
  point: SeamPoint;
  /** creates the session the racers fight over; returns its id (or null for creates) */
  setup(h: Harness): Promise<{ id: number | null; token: string }>;
  request(id: number | null, tag: string): RaceRequest;
  /** asserts the outcome: exactly one event (or one session) */
  check(h: Harness, id: number | null, responses: RaceResponse[], tag: string): Promise<void>;
}

async function fleetSession(h: Harness, body: Record<string, unknown> = {}): Promise<any> {
  return h.create(h.fleetKey, { title: 'raced', ...body });
}

async function oneEvent(h: Harness, id: number, type: string, responses: RaceResponse[]): Promise<void> {
  for (const r of responses) expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(await eventsOf(h, id, [type]), `exactly one ${type}`).toHaveLength(1);
}

const changedCount = (responses: RaceResponse[]) => responses.filter((r) => r.body.changed === true).length;

export const SCENARIOS: Scenario[] = [
  {
    name: 'archive (20 callers)',
    racers: 20,
    point: 'archive',
    async setup(h) {
      const s = (await fleetSession(h)).session;
      await h.request('POST', `/api/v1/sessions/${s.id}/stop`, { token: h.fleetKey, body: {} });
      return { id: s.id, token: h.fleetKey };
    },
    request: (id) => ({ method: 'POST', path: `/api/v1/sessions/${id}/archive`, body: {} }),
    async check(h, id, responses) {
      await oneEvent(h, id!, 'archived', responses);
      expect(responses.filter((r) => r.body.archived.includes(id)).length).toBe(1);
    },
  },
  {
    name: 'unarchive',
    racers: 2,
    point: 'lifecycle',
    async setup(h) {
      const s = (await fleetSession(h)).session;
      await h.request('POST', `/api/v1/sessions/${s.id}/archive`, { token: h.fleetKey, body: {} });
      return { id: s.id, token: h.fleetKey };
    },
    request: (id) => ({ method: 'POST', path: `/api/v1/sessions/${id}/unarchive`, body: {} }),
    async check(h, id, responses) {
      await oneEvent(h, id!, 'unarchived', responses);
      expect(changedCount(responses)).toBe(1);
    },
  },
  {
    name: 'resume',
    racers: 2,
    point: 'lifecycle',
    async setup(h) {
      const s = (await fleetSession(h)).session;
      await h.request('POST', `/api/v1/sessions/${s.id}/stop`, { token: h.fleetKey, body: {} });
      return { id: s.id, token: h.fleetKey };
    },
    request: (id) => ({ method: 'POST', path: `/api/v1/sessions/${id}/resume`, body: {} }),
    async check(h, id, responses) {
      await oneEvent(h, id!, 'resumed', responses);
      expect(changedCount(responses)).toBe(1);
    },
  },
  {
    name: 'stop a pending session',
    racers: 2,
    point: 'lifecycle',
    async setup(h) {
      return { id: (await fleetSession(h)).session.id, token: h.fleetKey };
    },
    request: (id) => ({ method: 'POST', path: `/api/v1/sessions/${id}/stop`, body: {} }),
    async check(h, id, responses) {
      await oneEvent(h, id!, 'stopped', responses);
      expect(changedCount(responses)).toBe(1);
    },
  },
  {
    name: 'stop running work',
    racers: 2,
    point: 'lifecycle',
    async setup(h) {
      return { id: (await fleetSession(h, { attach: true })).session.id, token: h.fleetKey };
    },
    request: (id) => ({ method: 'POST', path: `/api/v1/sessions/${id}/stop`, body: {} }),
    async check(h, id, responses) {
      await oneEvent(h, id!, 'stop_requested', responses);
      expect(await eventsOf(h, id!, ['inbox_item_added'])).toHaveLength(1);
      expect(changedCount(responses)).toBe(1);
    },
  },
  {
    name: 'PATCH the same field',
    racers: 2,
    point: 'patch',
    async setup(h) {
      return { id: (await fleetSession(h)).session.id, token: h.fleetKey };
    },
    request: (id) => ({ method: 'PATCH', path: `/api/v1/sessions/${id}`, body: { title: 'the one new title' } }),
    async check(h, id, responses) {
      await oneEvent(h, id!, 'title_changed', responses);
      expect(responses.map((r) => r.body.changed.length).sort()).toEqual([0, 1]);
    },
  },
  {
    name: 'create with the same Idempotency-Key',
    racers: 2,
    point: 'create-idempotency',
    async setup(h) {
      return { id: null, token: h.fleetKey };
    },
    request: (_id, tag) => ({ method: 'POST', path: '/api/v1/sessions', body: { title: `idempotent ${tag}` }, headers: { 'idempotency-key': `race-${tag}` } }),
    async check(h, _id, responses, tag) {
      for (const r of responses) expect(r.status, JSON.stringify(r.body)).toBe(201);
      const ids = new Set(responses.map((r) => r.body.session.id));
      expect(ids.size).toBe(1);
      const made = await h.store.kysely.selectFrom('sessions').select('id').where('title', '=', `idempotent ${tag}`).execute();
      expect(made).toHaveLength(1);
      expect(await eventsOf(h, made[0]!.id, ['created'])).toHaveLength(1);
    },
  },
];
