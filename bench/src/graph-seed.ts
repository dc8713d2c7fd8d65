import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { withClient } from '@inntak/postgres';
import { keptDatabase, scratchDatabase } from './bench-database.js';

/**
 * The graph bench:query and bench:growth measure against, seeded with set-based SQL the same
 * way for both (deterministic: setseed and ordinal-derived ids), so one kept database serves both.
 *
 * Seed shape: 2,000 persons; 500 collections, each with an owner (one of 20 heavy users) and
 * two members, and a webhook; the remaining nodes are content spread over a year, each in one
 * collection with that collection's three access rows (70 % hidden, 10 % each of
 * discoverable, readable, open; 80 % created by the webhook, 20 % by a person). Titles and
 * content are drawn from a 5,000-word vocabulary with a 1/rank (Zipf-like) frequency, kept in
 * the table bench_words (rank k, word w).
 */
export const PERSONS = 2_000;
export const COLLECTIONS = 500;

export interface SeededGraph {
  url: string;
  /** The database's name. */
  name: string;
  nodes: number;
  /** Drops a scratch database (unless BENCH_KEEP is set); a kept one (BENCH_DB) stays. */
  done(): Promise<void>;
}

/**
 * BENCH_DB keeps a seeded database between runs (seeding 1 M nodes takes minutes): when it
 * already holds a seed of BENCH_NODES nodes it is migrated and reused, and it is never dropped.
 * Without BENCH_DB, `scratchName` is made, seeded and (unless BENCH_KEEP) dropped by `done()`.
 */
export async function seededGraph(scratchName: string, defaultNodes: number): Promise<SeededGraph> {
  const kept = process.env.BENCH_DB;
  const name = kept ?? scratchName;
  const nodes = Number(process.env.BENCH_NODES ?? defaultNodes);
  const scratch = kept ? await keptDatabase(kept, nodes) : await scratchDatabase(name);
  const done = async () => {
    if (!process.env.BENCH_KEEP && !kept) await scratch.drop();
  };
  const t = performance.now();
  if (scratch.fresh) {
    await withClient(scratch.url, (c) => seed(c, nodes, kept !== undefined)).catch(async (err: unknown) => {
      await done();
      throw err;
    });
    console.log(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  } else console.log(`reusing the seeded database ${name}`);
  return { url: scratch.url, name, nodes, done };
}

/**
 * The callers bench:query and bench:growth measure as: `heavy`, the person with the most access
 * rows; `light`, the median person among those with any; `none`, a person with none.
 */
export async function seedCallers(c: pg.Client): Promise<{ heavy: string; light: string; none: string }> {
  const persons = await c.query<{ id: string; n: string }>(`
    select a.subject_id as id, count(*) as n from node_access a
      join nodes p on p.id = a.subject_id and p.node_kind = 'person'
     group by a.subject_id order by count(*) desc`);
  const none = await c.query<{ id: string }>(`
    select p.id from nodes p where p.node_kind = 'person'
       and not exists (select 1 from node_access a where a.subject_id = p.id) order by p.id limit 1`);
  return { heavy: persons.rows[0]!.id, light: persons.rows[Math.floor(persons.rows.length / 2)]!.id, none: none.rows[0]!.id };
}

/** The collections `person` has an access row on, in id order. */
export async function collectionsOf(c: pg.Client, person: string): Promise<string[]> {
  const rows = await c.query<{ id: string }>(
    `select object_id as id from node_access a join nodes n on n.id = a.object_id
      where a.subject_id = $1 and n.node_kind = 'collection' order by 1`,
    [person],
  );
  return rows.rows.map((r) => r.id);
}

/** Ordinals: persons 1..2000, collections 2001..2500, webhooks 2501..3000, content above. */
async function seed(c: pg.Client, nodes: number, kept: boolean): Promise<void> {
  const step = async (label: string, text: string) => {
    const t = performance.now();
    await c.query(text);
    console.log(`  ${label}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  const firstCollection = PERSONS + 1;
  const firstWebhook = PERSONS + COLLECTIONS + 1;
  const firstContent = PERSONS + 2 * COLLECTIONS + 1;
  await c.query(`set maintenance_work_mem = '512MB'`);
  await c.query(`set work_mem = '256MB'`);
  // Loading without the secondary indexes and foreign-key triggers, then building the indexes
  // from the migrations' own definitions, is several times faster than loading through them.
  const indexes = await c.query<{ name: string; def: string }>(`
    select i.indexname as name, i.indexdef as def from pg_indexes i
     where i.schemaname = 'public' and i.tablename in ('nodes', 'edges', 'node_access', 'node_search')
       and not exists (select 1 from pg_constraint k where k.conname = i.indexname)`);
  for (const index of indexes.rows) await c.query(`drop index ${index.name}`);
  await c.query(`set session_replication_role = replica`);
  await c.query(`
    select setseed(0.42);
    -- Every row's id, time and collection, computed once: UUIDv7-shaped ids in creation order
    -- over a year (edges get another version nibble pattern), collection k by a fixed hash.
    create temp table ordinals as
      select i, (lpad(to_hex(1700000000000 + i * 31536), 12, '0') || '70008' || lpad(to_hex(i), 15, '0'))::uuid as id,
                (lpad(to_hex(1700000000000 + i * 31536), 12, '0') || '7e008' || lpad(to_hex(i), 15, '0'))::uuid as edge,
                to_timestamp((1700000000000 + i * 31536) / 1000.0) as at,
                (i * 7919) % ${COLLECTIONS} as k
        from generate_series(1::bigint, ${nodes}) i;
    alter table ordinals add primary key (i);
    -- A word from its frequency rank: three syllables, so 8,000 distinct words are possible.
    create function pg_temp.word(k int) returns text language sql immutable as $$
      select (array['ka','lo','mi','nu','pe','ro','si','ta','ve','yo','bra','dal','fjo','gru','hav','sku','tre','vin','ord','elv'])[1 + k % 20]
          || (array['ka','lo','mi','nu','pe','ro','si','ta','ve','yo','bra','dal','fjo','gru','hav','sku','tre','vin','ord','elv'])[1 + (k / 20) % 20]
          || (array['n','r','s','t','l','k','m','d','g','v','x','e','a','i','o','u','ar','en','et','er'])[1 + (k / 400) % 20] $$;
    -- Text snippets to combine: words of rank k in 1..5000 with probability about 1/(k ln 5000),
    -- Zipf-like. Drawing every node's words afresh costs a minute; combining snippets does not.
    create temp table snippets as
      select s, (select string_agg(pg_temp.word(floor(exp(x.r * ln(5000)))::int), ' ')
                   from (select random() as r from generate_series(1, 4 + 0 * s)) x) as title,
                (select string_agg(pg_temp.word(floor(exp(x.r * ln(5000)))::int), ' ')
                   from (select random() as r from generate_series(1, 10 + 0 * s)) x) as body
        from generate_series(0, 65535) s;
    alter table snippets add primary key (s);
    create table bench_words as select k, pg_temp.word(k) as w from generate_series(1, 5000) k;
    -- Collection k: its node, its webhook and its webhook's edge.
    create temp table collections as
      select c.i - ${firstCollection} as k, c.id as coll, w.id as webhook, w.edge as webhook_edge
        from ordinals c join ordinals w on w.i = c.i + ${COLLECTIONS}
       where c.i between ${firstCollection} and ${firstWebhook - 1};
    -- Who has access to each collection: an owner among 20 heavy users, and two members.
    create temp table collection_subjects as
      select s.k, p.id as person, s.access from (
        select k, 1 + k % 20 as person, 'owner'::access_level as access from generate_series(0, ${COLLECTIONS - 1}) k
        union all select k, 21 + (k * 7) % 1980, 'member' from generate_series(0, ${COLLECTIONS - 1}) k
        union all select k, 21 + (k * 7 + 990) % 1980, 'reader' from generate_series(0, ${COLLECTIONS - 1}) k) s
      join ordinals p on p.i = s.person;`);
  await step(
    'persons, collections, webhooks',
    `insert into nodes (id, node_kind, title, content, visibility, metadata, created_by, created_at)
     select o.id, 'person', 'Person ' || o.i, null, 'discoverable', '{}', null, o.at
       from ordinals o where o.i <= ${PERSONS};
     insert into nodes (id, node_kind, title, content, visibility, metadata, created_by, created_at)
     select c.coll, 'collection', 'Samling ' || c.k, null, 'hidden', '{}', owner.person, o.at
       from collections c join ordinals o on o.id = c.coll
       join collection_subjects owner on owner.k = c.k and owner.access = 'owner';
     insert into nodes (id, node_kind, title, content, visibility, metadata, created_by, created_at)
     select c.webhook, 'webhook', 'Webhook ' || c.k, null, 'hidden', jsonb_build_object('token', gen_random_uuid()::text), owner.person, o.at
       from collections c join ordinals o on o.id = c.webhook
       join collection_subjects owner on owner.k = c.k and owner.access = 'owner';
     insert into edges (id, source_id, target_id, edge_type, metadata, system, created_by)
     select c.webhook_edge, c.webhook, c.coll, 'belongs_to', '{}', false, null from collections c;
     insert into node_access (subject_id, object_id, access, via_edge)
     select s.person, c.coll, s.access, null from collection_subjects s join collections c using (k)
     union all
     select s.person, c.webhook, s.access, c.webhook_edge from collection_subjects s join collections c using (k);`,
  );
  await step(
    `content nodes (${nodes - firstContent + 1})`,
    `insert into nodes (id, node_kind, title, content, visibility, metadata, created_by, created_at)
     select o.id, 'content', t.title, a.body || ' ' || b.body,
            (case when g.r < 0.7 then 'hidden' when g.r < 0.8 then 'discoverable' when g.r < 0.9 then 'readable' else 'open' end)::visibility,
            jsonb_build_object('source', 'webhook', 'webhook_id', c.webhook::text),
            case when g.r2 < 0.8 then c.webhook else p.id end,
            o.at
       from (select i, random() as r, random() as r2 from generate_series(${firstContent}::bigint, ${nodes}) i) g
       join ordinals o on o.i = g.i
       join collections c on c.k = o.k
       join ordinals p on p.i = 1 + (g.i * 31) % ${PERSONS}
       join snippets t on t.s = (g.i * 40503) % 65536
       join snippets a on a.s = (g.i * 9973) % 65536
       join snippets b on b.s = (g.i * 31337 + 7) % 65536`,
  );
  await step(
    'content belongs_to edges',
    `insert into edges (id, source_id, target_id, edge_type, metadata, system, created_by)
     select o.edge, o.id, c.coll, 'belongs_to', '{}', true, c.webhook
       from ordinals o join collections c on c.k = o.k where o.i >= ${firstContent}`,
  );
  await step(
    'content access rows',
    `insert into node_access (subject_id, object_id, access, via_edge)
     select s.person, o.id, s.access, o.edge
       from ordinals o join collection_subjects s on s.k = o.k where o.i >= ${firstContent}`,
  );
  // Triggers do not fire while loading as a replica; this is the migration's own backfill.
  // Since 025 the readers' columns sit beside the documents; before it (a before/after run on
  // one seed) they do not.
  const readers = (await c.query(`select 1 from information_schema.columns where table_name = 'node_search' and column_name = 'visibility'`)).rowCount;
  await step(
    'search documents',
    `insert into node_search (node_id, document, title_document ${readers ? ', visibility, created_by, readers' : ''})
     select n.id, node_search_document(n.title, n.content), setweight(to_tsvector('simple', coalesce(n.title, '')), 'A')
            ${readers ? `, n.visibility, n.created_by, coalesce(r.readers, '')` : ''}
       from nodes n
       ${readers ? `left join (select object_id, array_to_tsvector(array_agg(inntak_reader_lexeme(subject_id))) as readers
                                from node_access group by object_id) r on r.object_id = n.id` : ''}`,
  );
  await c.query(`set session_replication_role = origin`);
  for (const index of indexes.rows) await step(`index ${index.name}`, index.def);
  await step('vacuum analyze', 'vacuum analyze nodes, edges, node_access, node_search');
  const counts = await c.query<{ nodes: string; access: string }>(
    'select (select count(*) from nodes) as nodes, (select count(*) from node_access) as access',
  );
  console.log(`  ${counts.rows[0]!.nodes} nodes, ${counts.rows[0]!.access} access rows`);
  if (kept) await c.query('insert into bench_seed values ($1)', [nodes]);
}
