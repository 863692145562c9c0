import { describe, expect, it } from 'vitest';
import { resolveGenesis } from '../../src/core/genesis.js';

describe("genesis (docs/design/sessions.md's table)", () => {
  it.each([
    [{ kind: 'web_ui' } as const, 'web_ui', 'priority'],
    [{ kind: 'slack' } as const, 'slack', 'priority'],
    [{ kind: 'human_token' } as const, 'cli', 'priority'],
    [{ kind: 'session_token', parent: { genesis: 'schedule', schedulingClass: 'spot' } } as const, 'schedule', 'spot'],
    [{ kind: 'fleet', parent: { genesis: 'slack', schedulingClass: 'priority' } } as const, 'slack', 'priority'],
    [{ kind: 'fleet', parent: null } as const, 'api', 'priority'],
    [{ kind: 'client', declared: 'schedule' } as const, 'schedule', 'spot'],
    [{ kind: 'client', declared: 'github' } as const, 'github', 'spot'],
    [{ kind: 'client', declared: null } as const, 'api', 'priority'],
    [{ kind: 'system' } as const, 'system', 'spot'],
    [{ kind: 'import' } as const, 'unknown', 'priority'],
  ])('%o → %s · %s', (source, genesis, schedulingClass) => {
    expect(resolveGenesis(source)).toEqual({ genesis, schedulingClass });
  });
  it('an explicit scheduling class wins', () => {
    expect(resolveGenesis({ kind: 'web_ui' }, 'spot')).toEqual({ genesis: 'web_ui', schedulingClass: 'spot' });
  });
});
