/** docs/concepts.md: where a line of work came from, and its scheduling class. */
export const GENESES = ['web_ui', 'slack', 'cli', 'api', 'schedule', 'github', 'system', 'unknown'] as const;
export type Genesis = (typeof GENESES)[number];
export type SchedulingClass = 'priority' | 'spot';

export type GenesisSource =
  | { kind: 'web_ui' }
  | { kind: 'slack' }
  | { kind: 'human_token' }
  | { kind: 'session_token'; parent: { genesis: Genesis; schedulingClass: SchedulingClass } }
  | { kind: 'fleet'; parent: { genesis: Genesis; schedulingClass: SchedulingClass } | null }
  | { kind: 'client'; declared: Genesis | null }
  | { kind: 'system' }
  | { kind: 'import' };

function defaultClass(genesis: Genesis): SchedulingClass {
  return genesis === 'schedule' || genesis === 'github' || genesis === 'system' ? 'spot' : 'priority';
}

/**
 * Resolves genesis and scheduling class from who created the session (docs/concepts.md's table).
 * An explicit scheduling class wins when given.
 * @example resolveGenesis({kind:'client', declared:'schedule'}) // {genesis:'schedule', schedulingClass:'spot'}
 */
export function resolveGenesis(source: GenesisSource, explicitClass?: SchedulingClass | null): { genesis: Genesis; schedulingClass: SchedulingClass } {
  let genesis: Genesis;
  let schedulingClass: SchedulingClass;
  switch (source.kind) {
    case 'web_ui':
    case 'slack':
      genesis = source.kind;
      schedulingClass = 'priority';
      break;
    case 'human_token':
      genesis = 'cli';
      schedulingClass = 'priority';
      break;
    case 'session_token':
      genesis = source.parent.genesis;
      schedulingClass = source.parent.schedulingClass;
      break;
    case 'fleet':
      genesis = source.parent ? source.parent.genesis : 'api';
      schedulingClass = source.parent ? source.parent.schedulingClass : 'priority';
      break;
    case 'client':
      genesis = source.declared ?? 'api';
      schedulingClass = defaultClass(genesis);
      break;
    case 'system':
      genesis = 'system';
      schedulingClass = 'spot';
      break;
    case 'import':
      genesis = 'unknown';
      schedulingClass = 'priority';
      break;
  }
  return { genesis, schedulingClass: explicitClass ?? schedulingClass };
}
