import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { openDatabase } from '@inntak/postgres';
import type { TestIssuer } from '@inntak/test-support';
import { collectionsOf, seedCallers } from './graph-seed.js';
import { createPerson } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

/**
 * What bench:growth adds on top of a seeded graph (graph-seed.ts), idempotently, so a kept
 * database can be measured again: sign-in identities for a few seeded persons, an admin, a
 * GitHub-push webhook on the heavy caller's first collection and a publication of 30 articles
 * from its second, the last two made through the API as a client would. The seed's own rows
 * are not touched; the publication, the webhook and the admin are three extra nodes.
 */
export interface GrowthScene {
  heavy: string;
  light: string;
  /** The collection the webhook writes into, and the persons with access to it (owner, member, reader). */
  collection: string;
  audience: string[];
  webhook: { id: string; token: string };
  publication: { id: string; slug: string };
  /** The OIDC subject of a system administrator (GET /metrics). */
  admin: string;
}

const SLUG = 'growth-bench';
const WEBHOOK_TITLE = 'Growth bench webhook';
const ADMIN_SUBJECT = 'bench-growth-admin';
const ARTICLES = 30;
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

/** The OIDC subject a seeded person signs in with (an identity of any issuer: issuer ''). */
export const subjectOf = (person: string): string => `bench-${person}`;

/** The seeded persons and the identities they sign in with; the admin made once. */
export async function growthPersons(c: pg.Client, url: string): Promise<Pick<GrowthScene, 'heavy' | 'light' | 'collection' | 'audience' | 'admin'>> {
  const { heavy, light } = await seedCallers(c);
  const collection = (await collectionsOf(c, heavy))[0]!;
  const audience = (
    await c.query<{ id: string }>(
      `select a.subject_id as id from node_access a join nodes p on p.id = a.subject_id and p.node_kind = 'person'
        where a.object_id = $1 order by a.access, a.subject_id`,
      [collection],
    )
  ).rows.map((r) => r.id);
  for (const person of new Set([heavy, light, ...audience])) {
    await c.query(`insert into auth_identities (issuer, subject, node_id) values ('', $1, $2) on conflict do nothing`, [subjectOf(person), person]);
  }
  const admin = await c.query<{ node_id: string }>(`select node_id from auth_identities where issuer = '' and subject = $1`, [ADMIN_SUBJECT]);
  if (!admin.rows[0]) {
    const handle = openDatabase({ connectionString: url, logger: quiet, max: 1 });
    await createPerson(storesOn(handle.db).graph, { subject: ADMIN_SUBJECT, name: 'Growth bench admin', admin: true }).finally(() => handle.close());
  }
  return { heavy, light, collection, audience, admin: ADMIN_SUBJECT };
}

/** The webhook and the publication, made through the API as the heavy caller unless there already. */
export async function growthObjects(
  c: pg.Client,
  api: ApiClient,
  persons: Pick<GrowthScene, 'heavy' | 'collection'>,
): Promise<Pick<GrowthScene, 'webhook' | 'publication'>> {
  const heavy = subjectOf(persons.heavy);
  let webhook = (
    await c.query<{ id: string; token: string }>(`select id, metadata->>'token' as token from nodes where node_kind = 'webhook' and title = $1`, [WEBHOOK_TITLE])
  ).rows[0];
  webhook ??= await api.post<{ id: string; token: string }>(heavy, '/intentions/create_webhook', {
    collection_id: persons.collection,
    template_id: 'forge-push',
    title: WEBHOOK_TITLE,
  });
  let publication = (await c.query<{ id: string }>(`select id from nodes where node_kind = 'collection' and metadata->'publication'->>'slug' = $1`, [SLUG])).rows[0];
  publication ??= await api.post<{ id: string }>(heavy, '/intentions/create_publication', { title: 'Vekstposten', slug: SLUG });
  // The newest seeded content of the heavy caller's second collection, not yet published there.
  const source = (await collectionsOf(c, persons.heavy))[1]!;
  const unpublished = await c.query<{ id: string }>(
    `select a.id from (select e.source_id as id from edges e join nodes n on n.id = e.source_id and n.node_kind = 'content'
                        where e.target_id = $1 and e.edge_type = 'belongs_to' order by e.source_id desc limit ${ARTICLES}) a
      where not exists (select 1 from edges p where p.source_id = a.id and p.target_id = $2 and p.edge_type = 'published_in')`,
    [source, publication.id],
  );
  for (const { id } of unpublished.rows) await api.post(heavy, '/intentions/publish_article', { publication_id: publication.id, node_id: id });
  return { webhook: { id: webhook.id, token: webhook.token }, publication: { id: publication.id, slug: SLUG } };
}

/** The API as its own process (apps/api/dist/main.js, as in production), trusting the local issuer. */
export interface ApiClient {
  url: string;
  /** A fetch with `subject`'s bearer token (none: anonymous); throws unless 2xx. */
  get(subject: string | undefined, path: string): Promise<{ status: number; text: string }>;
  post<T = unknown>(subject: string, path: string, body: unknown): Promise<T>;
  token(subject: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startApiProcess(databaseUrl: string, issuer: TestIssuer): Promise<ApiClient> {
  const port = 20080 + Math.floor(Math.random() * 1000);
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [fileURLToPath(new URL('../../apps/api/dist/main.js', import.meta.url))], {
    // One client measures /sok one search after another: the per-address limit would answer 429.
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', OIDC_ISSUER: issuer.issuer, OIDC_AUDIENCE: issuer.audience, PUB_SEARCHES_PER_MINUTE: '10000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tokens = new Map<string, string>();
  // Tokens last the run (a /ws connection does not outlive its token).
  const token = async (subject: string) => tokens.get(subject) ?? tokens.set(subject, await issuer.token(subject, { expiresIn: '3h' })).get(subject)!;
  const headers = async (subject: string | undefined) => (subject ? { authorization: `Bearer ${await token(subject)}` } : undefined);
  const client: ApiClient = {
    url,
    token,
    async get(subject, path) {
      const res = await fetch(url + path, { headers: await headers(subject) });
      const text = await res.text();
      if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 200)}`);
      return { status: res.status, text };
    },
    async post<T>(subject: string, path: string, body: unknown) {
      const res = await fetch(url + path, { method: 'POST', headers: { ...(await headers(subject)), 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${text.slice(0, 200)}`);
      return JSON.parse(text) as T;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}`);
    const ready = await fetch(`${url}/health/ready`).then((r) => r.ok, () => false);
    if (ready) return client;
    if (i > 300) throw new Error('the API did not come up in 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The large publication of the public search rows: a tenth of the graph's nodes published. */
export const LARGE_SLUG = 'storposten';

/**
 * A publication holding one in ten of the graph's nodes (every other readable or open content
 * node, published at its creation time), made through the API, its published_in edges written
 * by SQL as the seed's are (a hundred thousand publish_article calls would take longer than
 * the seed). Made once; a kept database reuses it.
 */
export async function largePublication(c: pg.Client, api: ApiClient, heavy: string): Promise<{ id: string; articles: number }> {
  let publication = (await c.query<{ id: string }>(`select id from nodes where node_kind = 'collection' and metadata->'publication'->>'slug' = $1`, [LARGE_SLUG])).rows[0];
  if (!publication) {
    publication = await api.post<{ id: string }>(subjectOf(heavy), '/intentions/create_publication', { title: 'Storposten', slug: LARGE_SLUG });
    await c.query(
      `insert into edges (id, source_id, target_id, edge_type, metadata, system, created_by, created_at)
       select gen_random_uuid(), n.id, $1, 'published_in', '{}', false, $2, n.created_at
         from nodes n where n.node_kind = 'content' and n.visibility in ('readable', 'open') and hashtext(n.id::text) % 2 = 0`,
      [publication.id, heavy],
    );
    // As autovacuum would: the visibility map lets the walk read the index alone.
    await c.query('vacuum (analyze) edges');
  }
  const { rows } = await c.query<{ n: string }>(`select count(*) as n from edges where target_id = $1 and edge_type = 'published_in'`, [publication.id]);
  return { id: publication.id, articles: Number(rows[0]!.n) };
}
