import type { Executor } from './dialect/dialect.js';
import { compiledOnce, inIdList } from './compiled-once.js';

export interface UserRecord {
  id: number;
  key: string;
  displayName: string;
  email: string | null;
  slackUserIds: string[];
  notes: string | null;
  isAdmin: boolean;
  hasPassword: boolean;
  removedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

type UserRow = {
  id: number;
  key: string;
  display_name: string;
  email: string | null;
  slack_user_ids: string;
  notes: string | null;
  is_admin: number;
  password_hash: string | null;
  removed_at: string | null;
  created_at: string;
  updated_at: string;
};

export function toUser(row: UserRow): UserRecord {
  let slack: string[] = [];
  try {
    slack = JSON.parse(row.slack_user_ids) as string[];
  } catch {
    slack = [];
  }
  return {
    id: Number(row.id),
    key: row.key,
    displayName: row.display_name,
    email: row.email,
    slackUserIds: slack,
    notes: row.notes,
    isAdmin: Number(row.is_admin) === 1,
    hasPassword: row.password_hash !== null,
    removedAt: row.removed_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function findUserByKey(db: Executor, key: string): Promise<UserRecord | null> {
  const row = await db.selectFrom('users').selectAll().where('key', '=', key).executeTakeFirst();
  return row ? toUser(row) : null;
}

export async function findUserById(db: Executor, id: number): Promise<UserRecord | null> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toUser(row) : null;
}

// every request that shows actors reads their users: built and compiled once (compiled-once.ts)
const usersByIds = compiledOnce((db, p: { ids: readonly number[] }, d) =>
  db
    .selectFrom('users')
    .selectAll()
    .where(inIdList(d, 'id', p.ids)),
);

export async function findUsersByIds(db: Executor, ids: readonly number[]): Promise<Map<number, UserRecord>> {
  const out = new Map<number, UserRecord>();
  if (ids.length === 0) return out;
  for (const r of await usersByIds(db, { ids: [...new Set(ids)] })) out.set(Number(r.id), toUser(r));
  return out;
}

export async function listUsers(db: Executor): Promise<UserRecord[]> {
  const rows = await db.selectFrom('users').selectAll().orderBy('key').execute();
  return rows.map((r) => toUser(r));
}

export async function countUsers(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('removed_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertUser(
  db: Executor,
  u: { key: string; displayName: string; email: string | null; slackUserIds: string[]; notes: string | null; isAdmin: boolean; now: string },
): Promise<number> {
  const row = await db
    .insertInto('users')
    .values({
      key: u.key,
      display_name: u.displayName,
      email: u.email,
      slack_user_ids: JSON.stringify(u.slackUserIds),
      notes: u.notes,
      is_admin: u.isAdmin ? 1 : 0,
      created_at: u.now,
      updated_at: u.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function updateUser(
  db: Executor,
  id: number,
  changes: Partial<{
    key: string;
    displayName: string;
    email: string | null;
    slackUserIds: string[];
    notes: string | null;
    isAdmin: boolean;
    passwordHash: string | null;
    removedAt: string | null;
  }>,
  now: string,
): Promise<void> {
  const set: Record<string, unknown> = { updated_at: now };
  if (changes.key !== undefined) set.key = changes.key;
  if (changes.displayName !== undefined) set.display_name = changes.displayName;
  if (changes.email !== undefined) set.email = changes.email;
  if (changes.slackUserIds !== undefined) set.slack_user_ids = JSON.stringify(changes.slackUserIds);
  if (changes.notes !== undefined) set.notes = changes.notes;
  if (changes.isAdmin !== undefined) set.is_admin = changes.isAdmin ? 1 : 0;
  if (changes.passwordHash !== undefined) set.password_hash = changes.passwordHash;
  if (changes.removedAt !== undefined) set.removed_at = changes.removedAt;
  await db.updateTable('users').set(set).where('id', '=', id).execute();
}

export async function passwordHashOf(db: Executor, id: number): Promise<string | null> {
  const row = await db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirst();
  return row?.password_hash ?? null;
}
