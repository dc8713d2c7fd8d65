import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { sql } from 'kysely';
import { OPERATOR, createNode } from '@inntak/access';
import { createMediaNode } from '@inntak/postgres/media';
import { recordAbCounts } from '@inntak/postgres/publishing';
import { AbRecorder } from '@inntak/ab-testing';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { startApiInstance } from '../__tests__/realtime-helpers.js';
import type { PageCache } from './page-cache.js';
import { createPublication, createVariant, publishArticle } from '@inntak/publishing';
import { storesOn } from '@inntak/postgres/testing';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await setupTestContext();
});
afterAll(() => ctx.close());

let slugs = 0;
async function publishedArticle(publicationId: string, title: string): Promise<string> {
  const { id } = await createNode(storesOn(ctx.database.db).graph, { personId: ctx.ownerId, isAdmin: false }, { node_kind: 'content', title });
  await publishArticle(storesOn(ctx.database.db).publishing, OPERATOR, { publication_id: publicationId, node_id: id });
  return id;
}

async function newPublication(): Promise<{ id: string; slug: string }> {
  const slug = `server-${++slugs}`;
  return { ...(await createPublication(storesOn(ctx.database.db).publishing, OPERATOR, { title: 'Server', slug, ownerId: ctx.ownerId })), slug };
}

/**
 * Resolves once the cache has handled every change made so far: notices are handled in order,
 * so when a marker publication made now has been reported, so has everything before it.
 */
async function streamCaughtUp(cache: PageCache): Promise<void> {
  // Every invalidation from now on; the marker's may come before its id is known here.
  const reported = new Set<string>();
  let wake = () => {};
  const listener = (ids: string[] | 'all') => {
    for (const id of ids === 'all' ? ['all'] : ids) reported.add(id);
    wake();
  };
  cache.events.on('invalidated', listener);
  try {
    const marker = (await newPublication()).id;
    while (!reported.has(marker) && !reported.has('all')) await new Promise<void>((resolve) => (wake = resolve));
  } finally {
    cache.events.off('invalidated', listener);
  }
}

describe('the published pages in a running API', () => {
  it('pages are cached, and the change stream invalidates them when an article is published, edited or unpublished', async () => {
    const api = await startApiInstance(ctx);
    try {
      const pub = await newPublication();
      const first = await publishedArticle(pub.id, 'Første sak');
      const front = () => fetch(`${api.url}/pub/${pub.slug}`).then((r) => r.text());
      expect(await front()).toContain(first);
      const cache = api.publishing.pageCache!;

      const invalidated = once(cache.events, 'invalidated');
      const second = await publishedArticle(pub.id, 'Andre sak');
      expect(await invalidated).toEqual([[pub.id]]);
      expect(await front()).toContain(second);

      const edited = once(cache.events, 'invalidated');
      await sql`update nodes set title = 'Ny tittel' where id = ${first}`.execute(ctx.database.db);
      await edited;
      expect(await front()).toContain('Ny tittel');

      const unpublished = once(cache.events, 'invalidated');
      await sql`delete from edges where source_id = ${second} and edge_type = 'published_in'`.execute(ctx.database.db);
      await unpublished;
      expect(await front()).not.toContain(second);
    } finally {
      await api.close();
    }
  });

  it('an article page is rendered once and cached; the change stream drops it when the article is edited', async () => {
    const api = await startApiInstance(ctx);
    try {
      const pub = await newPublication();
      const id = await publishedArticle(pub.id, 'Artikkel i hurtigbuffer');
      await streamCaughtUp(api.publishing.pageCache!);
      const page = () => fetch(`${api.url}/pub/${pub.slug}/artikkel/${id}`).then((r) => r.text());
      expect(await page()).toContain('Artikkel i hurtigbuffer');
      // Not reported by the stream (triggers off): the cached page stays.
      await ctx.database.db.transaction().execute(async (trx) => {
        await sql`set local session_replication_role = replica`.execute(trx);
        await sql`update nodes set content = 'Stille innhold' where id = ${id}`.execute(trx);
      });
      expect(await page()).not.toContain('Stille innhold');
      const invalidated = once(api.publishing.pageCache!.events, 'invalidated');
      await sql`update nodes set title = 'Redigert artikkel' where id = ${id}`.execute(ctx.database.db);
      expect(await invalidated).toEqual([[pub.id]]);
      const after = await page();
      expect(after).toContain('Redigert artikkel');
      expect(after).toContain('Stille innhold');
    } finally {
      await api.close();
    }
  });

  it('a cached page is served from memory: a change the stream does not report is not seen', async () => {
    const api = await startApiInstance(ctx);
    try {
      const pub = await newPublication();
      const id = await publishedArticle(pub.id, 'Hurtig');
      // The publish's own notices must not arrive after the page was cached.
      await streamCaughtUp(api.publishing.pageCache!);
      expect(await fetch(`${api.url}/pub/${pub.slug}`).then((r) => r.text())).toContain('Hurtig');
      // With triggers off (replica role) the change sends no notice: only a page read from the
      // database could show it.
      await ctx.database.db.transaction().execute(async (trx) => {
        await sql`set local session_replication_role = replica`.execute(trx);
        await sql`update nodes set title = 'Stille endring' where id = ${id}`.execute(trx);
      });
      for (let i = 0; i < 5; i++) expect(await fetch(`${api.url}/pub/${pub.slug}`).then((r) => r.text())).toContain('Hurtig');
      const invalidated = once(api.publishing.pageCache!.events, 'invalidated');
      await sql`update nodes set content = 'rørt' where id = ${id}`.execute(ctx.database.db);
      await invalidated;
      expect(await fetch(`${api.url}/pub/${pub.slug}`).then((r) => r.text())).toContain('Stille endring');
    } finally {
      await api.close();
    }
  });

  // Found attacking the merged result of issue 35 (docs/security.md, fifth attack): a has_media
  // edge counts only while its maker holds admin on the media (finding 1), but a cached article
  // page kept showing the media's title after the owner revoked the maker, or moved the media
  // into a collection the maker cannot publish from: neither change reached the cache.
  it('drops an article page whose media stopped counting: its maker revoked, or the media moved into another collection', async () => {
    const api = await startApiInstance(ctx);
    const call = (path: string, authorization: string, body: object) =>
      fetch(`${api.url}${path}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    try {
      const owner = await ctx.ownerAuthorization();
      const pub = await newPublication();
      const articleId = await publishedArticle(pub.id, 'Sak med lyd');
      const admin = await ctx.addPerson(`lyd-admin-${slugs}`);
      expect((await call('/intentions/grant_access', owner, { subject_id: admin.id, object_id: ctx.collectionId, access: 'admin' })).status).toBe(200);
      expect((await call('/intentions/grant_access', owner, { subject_id: admin.id, object_id: articleId, access: 'member' })).status).toBe(200);
      const holder = await createNode(storesOn(ctx.database.db).graph, { personId: ctx.ownerId, isAdmin: false }, { node_kind: 'content', title: 'Opptak', collection_id: ctx.collectionId });
      const metadata = { media_type: 'audio', mime: 'audio/wav', bytes: 44, generated: false, regenerable: false, last_accessed_at: new Date().toISOString() } as const;
      const page = () => fetch(`${api.url}/pub/${pub.slug}/artikkel/${articleId}`).then((r) => r.text());

      // Revoked: the edge stops counting, and the cached page must say so.
      const first = await createMediaNode(ctx.database.db, { ownerId: holder.id, title: 'Styrets lydopptak', metadata });
      expect((await call('/intentions/create_edge', admin.authorization, { source_id: articleId, target_id: first.id, edge_type: 'has_media' })).status).toBe(201);
      await streamCaughtUp(api.publishing.pageCache!);
      expect(await page()).toContain('Styrets lydopptak');
      expect((await call('/intentions/revoke_access', owner, { subject_id: admin.id, object_id: ctx.collectionId })).status).toBe(200);
      await streamCaughtUp(api.publishing.pageCache!);
      expect(await page()).not.toContain('Styrets lydopptak');

      // Moved: the media now belongs also to a collection its maker holds nothing on.
      expect((await call('/intentions/grant_access', owner, { subject_id: admin.id, object_id: ctx.collectionId, access: 'admin' })).status).toBe(200);
      const second = await createMediaNode(ctx.database.db, { ownerId: holder.id, title: 'Lønnsforhandlingen', metadata });
      expect((await call('/intentions/create_edge', admin.authorization, { source_id: articleId, target_id: second.id, edge_type: 'has_media' })).status).toBe(201);
      await streamCaughtUp(api.publishing.pageCache!);
      expect(await page()).toContain('Lønnsforhandlingen');
      const hidden = (await call('/intentions/create_collection', owner, { title: 'Styret' }).then((r) => r.json())) as { id: string };
      expect((await call('/intentions/create_edge', owner, { source_id: second.id, target_id: hidden.id, edge_type: 'belongs_to' })).status).toBe(201);
      await streamCaughtUp(api.publishing.pageCache!);
      expect(await page()).not.toContain('Lønnsforhandlingen');
    } finally {
      await api.close();
    }
  });

  it('impressions counted in memory are all written when the API shuts down (the SIGTERM drain)', async () => {
    // A flush interval far beyond the test: only the shutdown can write these.
    const recorder = new AbRecorder((rows) => recordAbCounts(ctx.database.db, rows), ctx.logger, { flushMs: 3_600_000 });
    const api = await startApiInstance(ctx, {}, { publishing: { recorder } });
    const pub = await newPublication();
    const article = await publishedArticle(pub.id, 'Telles');
    const { edge_id: variant } = await createVariant(storesOn(ctx.database.db).publishing, OPERATOR, { publication_id: pub.id, article_id: article, variant_type: 'headline', title: 'Tellevariant' });
    // Twelve readers (one impression each per window: issue 22), the first of whom clicks.
    let link = '';
    for (let i = 0; i < 12; i++) {
      const page = await fetch(`${api.url}/pub/${pub.slug}`, { headers: { 'user-agent': `leser-${i}` } }).then((r) => r.text());
      expect(page).toContain('Tellevariant');
      // The first reader's link, with its signed impression id (issue 24).
      if (i === 0) link = /href="([^"]*\/t\/[^"]*)"/.exec(page)![1]!.replaceAll('&amp;', '&');
    }
    expect((await fetch(`${api.url}${link}`, { redirect: 'manual', headers: { 'user-agent': 'leser-0' } })).status).toBe(302);
    const { rows: none } = await sql`select 1 from ab_events where variant_edge_id = ${variant}`.execute(ctx.database.db);
    expect(none).toHaveLength(0);
    await api.close();
    const { rows } = await sql<{ impressions: string; clicks: string }>`
      select sum(impressions) as impressions, sum(clicks) as clicks from ab_events where variant_edge_id = ${variant}`.execute(ctx.database.db);
    expect(rows[0]).toEqual({ impressions: '12', clicks: '1' });
  });
});
