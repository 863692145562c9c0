import { sql, type RawBuilder } from 'kysely';
import { LEGACY_PARENT_KEY } from '../core/legacy-parent-key.js';
import type { StoreDialect } from './dialect/dialect.js';

// The legacy router key in SQL: the probe its index holds (migration 020) and the exact-spelling check.

/**
 * The legacy key of sessions `alias` reduced to its probe (legacyParentKeyProbes): `uid:`, `#`
 * and `-` removed, lowercased. Migration 020 indexes exactly this text for legacy rows.
 */
export function legacyKeyProbeSql(d: StoreDialect, alias: string): string {
  return `lower(replace(replace(replace(${d.jsonTextFieldSql(`${alias}custom_metadata`, LEGACY_PARENT_KEY)}, 'uid:', ''), '#', ''), '-', ''))`;
}

/**
 * Whether the key of a row found by `probe` is exactly one of the spellings of the session that
 * probe belongs to (legacyParentKeySpellings): for an id, the id or `#` and the id; for a uid
 * (a 32-character probe), the uid hyphenated or bare, lowercase or uppercase, with or without
 * `uid:`. Built from the probe value, so the row's key is extracted once.
 */
function legacyKeyIsSpellingSql(d: StoreDialect, alias: string, probe: string): string {
  const key = d.jsonTextFieldSql(`${alias}custom_metadata`, LEGACY_PARENT_KEY);
  const hyphenated = `substr(${probe}, 1, 8) || '-' || substr(${probe}, 9, 4) || '-' || substr(${probe}, 13, 4) || '-' || substr(${probe}, 17, 4) || '-' || substr(${probe}, 21, 12)`;
  const bodies = [probe, `upper(${probe})`, hyphenated, `upper(${hyphenated})`];
  const uidSpellings = [...bodies, ...bodies.map((b) => `'uid:' || ${b}`)];
  return `(case when length(${probe}) = 32 then ${key} in (${uidSpellings.join(', ')}) else ${key} in (${probe}, '#' || ${probe}) end)`;
}

const legacySql = new WeakMap<StoreDialect, { probe: RawBuilder<unknown>; spelling: RawBuilder<unknown> }>();

export function legacySqlOf(d: StoreDialect): { probe: RawBuilder<unknown>; spelling: RawBuilder<unknown> } {
  let p = legacySql.get(d);
  if (!p) legacySql.set(d, (p = { probe: sql.raw(legacyKeyProbeSql(d, 'c.')), spelling: sql.raw(legacyKeyIsSpellingSql(d, 'c.', 'k.probe')) }));
  return p;
}
