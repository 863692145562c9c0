import { describe, expect, it } from 'vitest';
import { ACTS, PERMISSIONS, PRINCIPAL_KINDS, permissionFor } from '../../src/core/permissions.js';

describe("docs/design/sessions.md's who-may-do-what table as data", () => {
  it('covers every act for every principal kind', () => {
    for (const act of ACTS) for (const kind of PRINCIPAL_KINDS) expect(PERMISSIONS[act][kind]).toBeDefined();
  });
  it("is exactly docs/design/sessions.md's table, transcribed independently here", () => {
    // columns: fleet, session token, human token / web, client, admin
    const spec: Record<string, [string, string, string, string, string]> = {
      read: ['yes', 'yes', 'yes', 'yes', 'yes'], // all / own owner's / own / all / all — visibility decides
      create: ['yes', 'yes', 'yes', 'yes', 'yes'],
      attach: ['yes', 'no', 'yes', 'no', 'yes'],
      patch: ['yes', 'self-or-descendant', 'yes', 'no', 'yes'],
      'patch-parent': ['no', 'no', 'yes', 'no', 'yes'],
      deliver: ['yes', 'yes', 'yes', 'yes', 'yes'],
      lifecycle: ['yes', 'self-or-descendant', 'yes', 'yes', 'yes'],
      delete: ['no', 'no', 'yes', 'no', 'yes'],
      'remove-uncle': ['yes', 'no', 'yes', 'no', 'yes'],
      runtime: ['yes', 'self', 'no', 'no', 'yes'],
      // agent runtimes: a runtime reports for the subagent sessions it created, and only it creates them
      'runtime-report': ['yes', 'self-or-runtime-child', 'no', 'no', 'yes'],
      'create-runtime-child': ['no', 'self', 'no', 'no', 'no'],
      'send-message': ['declared-only', 'yes', 'no', 'no', 'no'],
      // a node's Prometheus metrics: the operator's credentials only
      metrics: ['yes', 'no', 'no', 'no', 'yes'],
      admin: ['no', 'no', 'no', 'no', 'yes'],
    };
    expect(Object.keys(PERMISSIONS).sort()).toEqual(Object.keys(spec).sort());
    for (const [act, row] of Object.entries(spec)) {
      expect(
        [
          PERMISSIONS[act as keyof typeof PERMISSIONS].fleet,
          PERMISSIONS[act as keyof typeof PERMISSIONS].session,
          PERMISSIONS[act as keyof typeof PERMISSIONS].human,
          PERMISSIONS[act as keyof typeof PERMISSIONS].client,
          PERMISSIONS[act as keyof typeof PERMISSIONS].admin,
        ],
        act,
      ).toEqual(row);
    }
  });
  it('matches the table rows that are easy to get wrong', () => {
    expect(PERMISSIONS.attach.session).toBe('no');
    expect(PERMISSIONS.attach.client).toBe('no');
    expect(PERMISSIONS['patch-parent'].fleet).toBe('no');
    expect(PERMISSIONS.delete.fleet).toBe('no');
    expect(PERMISSIONS.delete.session).toBe('no');
    expect(PERMISSIONS['remove-uncle'].session).toBe('no');
    expect(PERMISSIONS.runtime.human).toBe('no');
    expect(PERMISSIONS.runtime.session).toBe('self');
    expect(PERMISSIONS['send-message'].fleet).toBe('declared-only');
    expect(PERMISSIONS['send-message'].admin).toBe('no');
    expect(PERMISSIONS.admin.admin).toBe('yes');
    expect(PERMISSIONS.patch.client).toBe('no');
    expect(PERMISSIONS.lifecycle.client).toBe('yes');
  });
  it('judges relations', () => {
    expect(permissionFor('session', 'patch', { isSelf: false, isDescendant: true })).toEqual({ allowed: true });
    expect(permissionFor('session', 'patch', { isSelf: false, isDescendant: false }).allowed).toBe(false);
    expect(permissionFor('session', 'runtime', { isSelf: false, isDescendant: true }).allowed).toBe(false);
    // a runtime child is a spawn descendant too, but only the runtime relation reports for it
    expect(permissionFor('session', 'runtime-report', { isSelf: false, isDescendant: true, isRuntimeChild: true })).toEqual({ allowed: true });
    expect(permissionFor('session', 'runtime-report', { isSelf: false, isDescendant: true }).allowed).toBe(false);
    expect(permissionFor('session', 'runtime', { isSelf: false, isDescendant: true, isRuntimeChild: true }).allowed).toBe(false);
    expect(permissionFor('session', 'create-runtime-child', { isSelf: false, isDescendant: true, isRuntimeChild: true }).allowed).toBe(false);
    expect(permissionFor('fleet', 'send-message', null, true)).toEqual({ allowed: true });
    expect(permissionFor('fleet', 'send-message', null, false).allowed).toBe(false);
  });
});
