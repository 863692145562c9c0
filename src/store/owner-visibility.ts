import { sql, type RawBuilder } from 'kysely';

/**
 * The one owner-visibility filter every list query applies in multi-user mode: rows whose owner
 * is one of `visibleOwners` (`null` standing for sessions nobody owns). An empty list matches
 * nothing, never everything.
 */
export function ownerVisible(column: string, visibleOwners: readonly (number | null)[]): RawBuilder<boolean> {
  const owners = visibleOwners.filter((o): o is number => o !== null);
  const ref = sql.ref(column);
  const matches: RawBuilder<boolean>[] = [];
  if (owners.length > 0) matches.push(sql<boolean>`${ref} in (${sql.join(owners)})`);
  if (visibleOwners.includes(null)) matches.push(sql<boolean>`${ref} is null`);
  return matches.length > 0 ? sql<boolean>`(${sql.join(matches, sql` or `)})` : sql<boolean>`1 = 0`;
}
