import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { EDGE_RULES, LAST_OBSERVES_DETAIL, NODE_KIND_RULES, type Actor, createCollection, createEdge, createNode, createPerson, deleteEdge, grantAccess, OPERATOR } from '@inntak/access';
import { EDGE_TYPES, NODE_KINDS, TAG_NODE_KIND, TAGGED_EDGE_TYPE } from '@inntak/graph';
import { HAS_MEDIA_EDGE, MEDIA_NODE_KIND } from '@inntak/media';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { FRONT_PAGE_VARIANT, PUBLISHED_IN } from '../publishing/index.js';
import { createWebhook } from '@inntak/intake';
import { runGraphAction } from '@inntak/orchestration';
import { createPublication, createVariant, publishArticle } from '@inntak/publishing';

/**
 * The write policy (issue 22): every edge type and node kind the database and the code know has
 * a row, and the graph writes, orchestration actions and publishing operations follow the rows.
 */

let h: OpenTestDatabase;
/** A run at depth 0 of its own root event, with the default budget. */
const RUN = { depth: 0, root: '00000000-0000-7000-8000-000000000001', budget: 100 };
type Person = Actor & { personId: string };

beforeAll(async () => {
  h = await openTestDatabase();
});
afterAll(async () => {
  await h.dispose();
});

async function person(subject: string, admin = false): Promise<Person> {
  return { personId: (await createPerson(storesOn(h.db).graph, { subject, admin })).id, isAdmin: admin };
}

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));

/** Literals compared with `column` in SQL text: `= 'x'`, `<> 'x'`, `in ('x', ...)`, `= any (array['x'])`, `case column when 'x'`. */
function sqlLiterals(text: string, column: string): string[] {
  const found: string[] = [];
  const quoted = (s: string) => [...s.matchAll(/'([a-z][a-z0-9_]*)'/g)].map((m) => m[1]!);
  const col = `\\b${column}\\)?(?:::text)?\\s*`;
  for (const m of text.matchAll(new RegExp(`${col}(?:=|<>|!=)\\s*'([a-z][a-z0-9_]*)'`, 'gi'))) found.push(m[1]!);
  for (const m of text.matchAll(new RegExp(`(?<!->>?\\s*)'([a-z][a-z0-9_]*)'(?:::text)?\\s*(?:=|<>|!=)\\s*\\(?[a-z_.]*\\b${column}\\b`, 'gi'))) found.push(m[1]!);
  for (const m of text.matchAll(new RegExp(`${col}(?:not\\s+)?in\\s*\\(([^)]*)\\)`, 'gi'))) found.push(...quoted(m[1]!));
  for (const m of text.matchAll(new RegExp(`${col}(?:=|<>)\\s*any\\s*\\(\\s*(?:array)?\\s*\\[([^\\]]*)\\]`, 'gi'))) found.push(...quoted(m[1]!));
  for (const m of text.matchAll(new RegExp(`case\\s+(?:[a-z_]+\\.)?${column}\\b([\\s\\S]*?)\\bend\\b`, 'gi'))) {
    // Up to a nested case (whose whens compare something else).
    const body = m[1]!.split(/\bcase\b/i)[0]!;
    found.push(...[...body.matchAll(/when\s+'([a-z][a-z0-9_]*)'/gi)].map((w) => w[1]!));
  }
  return found;
}

/** Every SQL text of the migrated schema: functions, views, index predicates, constraints, triggers. */
async function schemaTexts(): Promise<string[]> {
  const { rows } = await sql<{ text: string }>`
    select pg_get_functiondef(p.oid) as text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public' and p.prokind in ('f', 'p')
    union all select definition from pg_views where schemaname = 'public'
    union all select indexdef from pg_indexes where schemaname = 'public'
    union all select pg_get_constraintdef(c.oid) from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = 'public'
    union all select pg_get_triggerdef(t.oid) from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and not t.tgisinternal`.execute(h.db);
  return rows.map((r) => r.text);
}

/** The non-test TypeScript of every package and app. */
async function sourceTexts(): Promise<string[]> {
  const texts: string[] = [];
  for (const top of ['packages', 'apps']) {
    for (const pkg of await readdir(join(REPO, top))) {
      const src = join(REPO, top, pkg, 'src');
      const files = await readdir(src, { recursive: true }).catch(() => [] as string[]);
      for (const file of files) {
        if (file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.includes('__tests__')) texts.push(await readFile(join(src, file), 'utf8'));
      }
    }
  }
  return texts;
}

/** `edge_type: 'x'` / `node_kind: 'x'` in code: what the code writes. */
function codeLiterals(text: string, field: string): string[] {
  return [...text.matchAll(new RegExp(`\\b${field}:\\s*'([a-z][a-z0-9_]*)'`, 'g'))].map((m) => m[1]!);
}

describe('the write policy has a row for everything the database and the code know', () => {
  it('every edge type and node kind compared in the migrated schema, written by the code or named in @inntak/graph has its own row', async () => {
    const schema = await schemaTexts();
    const source = await sourceTexts();
    const edgeTypes = new Set<string>([
      ...schema.flatMap((t) => sqlLiterals(t, 'edge_type')),
      ...source.flatMap((t) => [...codeLiterals(t, 'edge_type'), ...sqlLiterals(t, 'edge_type')]),
      ...EDGE_TYPES,
      TAGGED_EDGE_TYPE,
      HAS_MEDIA_EDGE,
      PUBLISHED_IN,
      FRONT_PAGE_VARIANT,
    ]);
    const nodeKinds = new Set<string>([
      ...schema.flatMap((t) => sqlLiterals(t, 'node_kind')),
      ...source.flatMap((t) => [...codeLiterals(t, 'node_kind'), ...sqlLiterals(t, 'node_kind')]),
      ...NODE_KINDS,
      TAG_NODE_KIND,
      MEDIA_NODE_KIND,
    ]);
    // The enumeration finds what is known to be there (so a broken pattern cannot pass silently).
    expect(schema.flatMap((t) => sqlLiterals(t, 'edge_type'))).toEqual(expect.arrayContaining(['observes', 'belongs_to', 'published_in', 'front_page_variant', 'tagged', 'owner', 'member_of']));
    expect(schema.flatMap((t) => sqlLiterals(t, 'node_kind'))).toEqual(expect.arrayContaining(['orchestration', 'webhook', 'tag', 'collection']));
    expect([...edgeTypes].filter((t) => !Object.hasOwn(EDGE_RULES, t))).toEqual([]);
    expect([...nodeKinds].filter((k) => !Object.hasOwn(NODE_KIND_RULES, k))).toEqual([]);
  });
});

/** An owner with a collection C, an orchestration O in C observing C, and a member of C (member on O too, through belongs_to). */
async function orchestrationScene(tag: string) {
  const owner = await person(`owner-${tag}`);
  const member = await person(`member-${tag}`);
  const c = (await createCollection(storesOn(h.db).graph, { title: 'C', ownerId: owner.personId })).id;
  await grantAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: c, access: 'member' });
  const o = (
    await createNode(storesOn(h.db).graph, owner, {
      node_kind: 'orchestration',
      title: 'O',
      content: 'steps:\n  - action: create_node\n    with: { node_kind: content, title: x }\n',
      metadata: { trigger: { event: 'node.created' } },
      collection_id: c,
    })
  ).id;
  const observes = (await createEdge(storesOn(h.db).graph, owner, { source_id: o, target_id: c, edge_type: 'observes' })).id;
  return { owner, member, c, o, observes };
}

async function edgeExists(id: string): Promise<boolean> {
  return (await h.db.selectFrom('edges').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

describe('an orchestration: nothing below admin on it changes what it sees (finding 1)', () => {
  it('a member of the orchestration may neither delete its observes edge nor add one; its owner may add one', async () => {
    const s = await orchestrationScene('1a');
    const own = (await createCollection(storesOn(h.db).graph, { title: 'Mine', ownerId: s.member.personId })).id;
    expect((await h.db.selectFrom('node_access').select('access').where('subject_id', '=', s.member.personId).where('object_id', '=', s.o).executeTakeFirst())?.access).toBe('member');
    await expect(deleteEdge(storesOn(h.db).graph, s.member, { edge_id: s.observes })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(createEdge(storesOn(h.db).graph, s.member, { source_id: s.o, target_id: own, edge_type: 'observes' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(createEdge(storesOn(h.db).graph, s.member, { source_id: own, target_id: s.o, edge_type: 'relates_to' })).rejects.toMatchObject({ code: 'forbidden' });
    expect(await edgeExists(s.observes)).toBe(true);
    await createEdge(storesOn(h.db).graph, s.owner, { source_id: s.o, target_id: s.c, edge_type: 'observes' });
  });

  it('an observes edge to a webhook is refused (400): deleting the webhook would take the edge and widen the orchestration', async () => {
    const s = await orchestrationScene('1w');
    const hook = await createWebhook(storesOn(h.db).webhookAdmin, OPERATOR, { collectionId: s.c, templateId: null, createdBy: s.owner.personId });
    await expect(createEdge(storesOn(h.db).graph, s.owner, { source_id: s.o, target_id: hook.id, edge_type: 'observes' })).rejects.toMatchObject({ code: 'invalid_input', detail: expect.stringMatching(/^target_id: en webhook kan ikke observeres/) });
  });

  it('its last observes edge is not deleted by its owner nor by an admin of the observed collection (409); one of two is', async () => {
    const s = await orchestrationScene('1b');
    const admin = await person('admin-1b');
    await grantAccess(storesOn(h.db).graph, s.owner, { subject_id: admin.personId, object_id: s.c, access: 'admin' });
    const other = (await createCollection(storesOn(h.db).graph, { title: 'D', ownerId: s.owner.personId })).id;
    const second = (await createEdge(storesOn(h.db).graph, s.owner, { source_id: s.o, target_id: other, edge_type: 'observes' })).id;
    // The admin of C clears the orchestration's edge to C (narrowing it): allowed while another remains.
    await deleteEdge(storesOn(h.db).graph, admin, { edge_id: s.observes });
    expect(await edgeExists(s.observes)).toBe(false);
    await expect(deleteEdge(storesOn(h.db).graph, s.owner, { edge_id: second })).rejects.toMatchObject({ code: 'conflict', detail: LAST_OBSERVES_DETAIL });
    expect(await edgeExists(second)).toBe(true);
  });

  it('an orchestration’s create_node makes no cli_tool unless its creator is a system administrator, and never an orchestration', async () => {
    const s = await orchestrationScene('14');
    const tool = { node_kind: 'cli_tool', title: 'echo', metadata: { command: 'echo' } };
    await expect(runGraphAction(storesOn(h.db).orchestration, s.owner, RUN, 'create_node', tool)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(createNode(storesOn(h.db).graph, s.owner, tool)).rejects.toMatchObject({ code: 'forbidden' });
    const root = await person('root-14', true);
    await expect(runGraphAction(storesOn(h.db).orchestration, root, RUN, 'create_node', tool)).resolves.toMatchObject({ id: expect.any(String) });
    await expect(runGraphAction(storesOn(h.db).orchestration, root, RUN, 'create_node', { node_kind: 'orchestration', title: 'o' })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('owner edges', () => {
  it('delete_edge on the last owner edge of a collection answers 409 as revoke_access does; with a second owner it is deleted', async () => {
    const owner = await person('last-owner');
    const other = await person('second-owner');
    const collection = await createCollection(storesOn(h.db).graph, { title: 'Eid', ownerId: owner.personId });
    const edge = await h.db.selectFrom('edges').select('id').where('target_id', '=', collection.id).where('edge_type', '=', 'owner').executeTakeFirstOrThrow();
    await expect(deleteEdge(storesOn(h.db).graph, owner, { edge_id: edge.id })).rejects.toMatchObject({ code: 'conflict' });
    await grantAccess(storesOn(h.db).graph, owner, { subject_id: other.personId, object_id: collection.id, access: 'owner' });
    await expect(deleteEdge(storesOn(h.db).graph, owner, { edge_id: edge.id })).resolves.toEqual({ id: edge.id });
    const owners = await h.db.selectFrom('edges').select('source_id').where('target_id', '=', collection.id).where('edge_type', '=', 'owner').execute();
    expect(owners).toEqual([{ source_id: other.personId }]);
  });
});

describe('set_metadata follows the node kind’s rule (finding 2)', () => {
  it('a collection’s settings take admin on it, its publication only its own operations; media and cli_tool are not a member’s', async () => {
    const owner = await person('owner-2');
    const member = await person('member-2');
    const pub = (await createPublication(storesOn(h.db).publishing, OPERATOR, { title: 'Nyheter', slug: 'nyheter-2', ownerId: owner.personId })).id;
    await grantAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: pub, access: 'member' });
    await expect(runGraphAction(storesOn(h.db).orchestration, member, RUN, 'set_metadata', { node_id: pub, key: 'publication', value: { slug: 'nyheter-old' } })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(runGraphAction(storesOn(h.db).orchestration, member, RUN, 'set_metadata', { node_id: pub, key: 'theme', value: 'dark' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(runGraphAction(storesOn(h.db).orchestration, owner, RUN, 'set_metadata', { node_id: pub, key: 'publication', value: { slug: 'nyheter-old' } })).rejects.toMatchObject({ code: 'invalid_input' });
    await runGraphAction(storesOn(h.db).orchestration, owner, RUN, 'set_metadata', { node_id: pub, key: 'theme', value: 'dark' });
    const row = await h.db.selectFrom('nodes').select('metadata').where('id', '=', pub).executeTakeFirstOrThrow();
    expect(row.metadata).toMatchObject({ publication: { slug: 'nyheter-2' }, theme: 'dark' });

    const content = (await createNode(storesOn(h.db).graph, member, { node_kind: 'content', title: 'Mitt', collection_id: pub })).id;
    await runGraphAction(storesOn(h.db).orchestration, member, RUN, 'set_metadata', { node_id: content, key: 'seen', value: true });
    const root = await person('root-2', true);
    const tool = (await createNode(storesOn(h.db).graph, root, { node_kind: 'cli_tool', title: 'echo', metadata: { command: 'echo' }, collection_id: pub })).id;
    await expect(runGraphAction(storesOn(h.db).orchestration, owner, RUN, 'set_metadata', { node_id: tool, key: 'command', value: 'rm' })).rejects.toMatchObject({ code: 'forbidden' });
  });
});

describe('publishing and variants follow the published_in and front_page_variant rows (findings 3 and 6)', () => {
  it('a member of the publication may not delete a variant with delete_edge; its admin may; the variant’s clicks stay with it', async () => {
    const editor = await person('editor-3');
    const member = await person('member-3');
    const pub = (await createPublication(storesOn(h.db).publishing, OPERATOR, { title: 'Blad', slug: 'blad-3', ownerId: editor.personId })).id;
    await grantAccess(storesOn(h.db).graph, editor, { subject_id: member.personId, object_id: pub, access: 'member' });
    const article = (await createNode(storesOn(h.db).graph, editor, { node_kind: 'content', title: 'Sak', collection_id: pub })).id;
    await publishArticle(storesOn(h.db).publishing, editor, { publication_id: pub, node_id: article });
    const a = (await createVariant(storesOn(h.db).publishing, editor, { publication_id: pub, article_id: article, variant_type: 'title', title: 'A' })).edge_id;
    await sql`insert into ab_events (variant_edge_id, hour_of_week, impressions, clicks) values (${a}, 1, 10, 2)`.execute(h.db);
    await expect(deleteEdge(storesOn(h.db).graph, member, { edge_id: a })).rejects.toMatchObject({ code: 'forbidden' });
    expect(await edgeExists(a)).toBe(true);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from ab_events where variant_edge_id = ${a}`.execute(h.db);
    expect(rows[0]!.n).toBe(1);
    // The article's owner is its admin, yet a variant is the publication's: no cleanup rule.
    const author = await person('author-3');
    const theirs = (await createNode(storesOn(h.db).graph, author, { node_kind: 'content', title: 'Deres', visibility: 'readable' })).id;
    await grantAccess(storesOn(h.db).graph, author, { subject_id: editor.personId, object_id: theirs, access: 'admin' });
    await publishArticle(storesOn(h.db).publishing, editor, { publication_id: pub, node_id: theirs });
    const b = (await createVariant(storesOn(h.db).publishing, editor, { publication_id: pub, article_id: theirs, variant_type: 'title', title: 'B' })).edge_id;
    // The publication is hidden from the author: the refusal of the variant's rule is a 404.
    await expect(deleteEdge(storesOn(h.db).graph, author, { edge_id: b })).rejects.toMatchObject({ code: 'not_found', detail: 'edge_id' });
    expect(await edgeExists(b)).toBe(true);
    await deleteEdge(storesOn(h.db).graph, editor, { edge_id: a });
    expect(await edgeExists(a)).toBe(false);
  });

  it('an orchestration or a collection is never published (400), whoever holds admin on it', async () => {
    const s = await orchestrationScene('6k');
    const pub = (await createPublication(storesOn(h.db).publishing, OPERATOR, { title: 'Blad', slug: 'blad-6k', ownerId: s.owner.personId })).id;
    await expect(publishArticle(storesOn(h.db).publishing, s.owner, { publication_id: pub, node_id: s.o })).rejects.toMatchObject({ code: 'invalid_input', detail: 'node_id: en orchestration kan ikke publiseres' });
    await expect(publishArticle(storesOn(h.db).publishing, s.owner, { publication_id: pub, node_id: s.c })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
