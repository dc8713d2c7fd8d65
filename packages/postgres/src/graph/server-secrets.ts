import { sql } from 'kysely';
import type { SharedKey } from '@inntak/core';
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

/** How long a key rotated away from still verifies: longer than a media link lives (24 h). */
export const KEY_OVERLAP_HOURS = 25;
/** How long a process trusts its cached keys before reading them again (a rotation reaches every process within this). */
const KEY_CACHE_MS = 60_000;
/** A refresh asked for by a signature no cached key verifies waits at least this long after the last read. */
const FRESH_READ_MIN_MS = 100;

/**
 * A key shared by every process through server_secrets (issue 38), made on first use: a key
 * nobody has used yet loses nothing by being new, and every process reads the one that won the
 * insert. The previous key is accepted until KEY_OVERLAP_HOURS after its rotation.
 */
export function sharedKey(db: Db, name: string): SharedKey {
  let keys: Promise<Uint8Array[]> | undefined;
  let readAt = 0;
  const read = (): Promise<Uint8Array[]> => {
    readAt = Date.now();
    keys = sql`insert into server_secrets (name, secret)
      values (${name}, decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'))
      on conflict (name) do nothing`
      .execute(db)
      .then(() =>
        sql<{ secret: Buffer; previous: Buffer | null }>`
          select secret, case when rotated_at > now() - make_interval(hours => ${KEY_OVERLAP_HOURS}) then previous_secret end as previous
          from server_secrets where name = ${name}`.execute(db),
      )
      .then(({ rows }) => [rows[0]!.secret, ...(rows[0]!.previous ? [rows[0]!.previous] : [])])
      .catch((err: unknown) => {
        keys = undefined;
        throw err;
      });
    return keys;
  };
  const cached = (fresh: boolean) => {
    const age = Date.now() - readAt;
    if (!keys || age > KEY_CACHE_MS || (fresh && age > FRESH_READ_MIN_MS)) return read();
    return keys;
  };
  return {
    current: async () => (await cached(false))[0]!,
    accepted: (fresh = false) => cached(fresh),
  };
}

/**
 * Makes a new key `name` and keeps the old one as previous (accepted for KEY_OVERLAP_HOURS);
 * `inntak secrets rotate`. Answers false for a name that has no key yet.
 */
export async function rotateServerSecret(db: Db, name: string): Promise<boolean> {
  const result = await sql`update server_secrets
    set previous_secret = secret, rotated_at = now(),
        secret = decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex')
    where name = ${name}`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}
