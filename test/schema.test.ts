import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { dumpSchema, withClient } from '@inntak/postgres';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';

// db/schema.sql is the schema every migration adds up to, committed so each migration's effect
// shows as a diff. After adding a migration: `npm run db:schema` rewrites it.
const SCHEMA_FILE = new URL('../db/schema.sql', import.meta.url);

let database: OpenTestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.dispose());

it('db/schema.sql is the schema the migrations make (npm run db:schema rewrites it)', async () => {
  const actual = await dumpSchema(database.db);
  if (process.env.INNTAK_WRITE_SCHEMA === '1') writeFileSync(SCHEMA_FILE, actual);
  expect(actual).toBe(readFileSync(SCHEMA_FILE, 'utf8'));
});

it('every foreign key has an index on its columns, so deleting the row it names reads no whole table', async () => {
  const { rows } = await withClient(database.url, (c) =>
    c.query<{ name: string }>(`
    select c.conrelid::regclass || '.' || c.conname as name from pg_constraint c
     where c.contype = 'f' and c.connamespace = 'public'::regnamespace
       and not exists (select 1 from pg_index i
                        where i.indrelid = c.conrelid and (i.indkey::int2[])[0:cardinality(c.conkey) - 1] = c.conkey)
     order by 1`),
  );
  expect(rows.map((r) => r.name)).toEqual([]);
});
