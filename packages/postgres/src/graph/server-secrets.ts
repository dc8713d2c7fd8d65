import { sql } from 'kysely';
import type { Db } from '../platform/index.js';

/**
 * A secret the service made for itself at migration (table server_secrets, 007): shared by
 * every API instance and kept across restarts, so a cursor sealed by one instance opens on
 * another, and after a restart.
 */
export async function readServerSecret(db: Db, name: string): Promise<Uint8Array> {
  const { rows } = await sql<{ secret: Buffer }>`select secret from server_secrets where name = ${name}`.execute(db);
  if (!rows[0]) throw new Error(`server secret ${name} is missing: run the migrations`);
  return rows[0].secret;
}

/** The key that seals /query/nodes cursors, read once. */
export function queryCursorKey(db: Db): () => Promise<Uint8Array> {
  let key: Promise<Uint8Array> | undefined;
  return () => {
    key ??= readServerSecret(db, 'query_cursor').catch((err: unknown) => {
      key = undefined;
      throw err;
    });
    return key;
  };
}

/**
 * The key that signs the published pages' visitor cookies (`inntak_ab`, issue 35), read once. Made
 * on first use rather than by a migration: a key nobody has used yet loses nothing by being new,
 * and every instance reads the one that won the insert.
 */
export function abVisitorKey(db: Db): () => Promise<Uint8Array> {
  let key: Promise<Uint8Array> | undefined;
  return () => {
    key ??= sql`insert into server_secrets (name, secret)
      values ('ab_visitor', decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'))
      on conflict (name) do nothing`
      .execute(db)
      .then(() => readServerSecret(db, 'ab_visitor'))
      .catch((err: unknown) => {
        key = undefined;
        throw err;
      });
    return key;
  };
}
