import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { recordAbCounts } from '@inntak/postgres/publishing';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { runDatabaseCommand } from './commands.js';
import { createNode, createPerson } from '@inntak/access';
import { createVariant } from '@inntak/publishing';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
let h: OpenTestDatabase;
let owner: string;

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  owner = (await createPerson(storesOn(h.db).graph, { subject: 'publisher' })).id;
});
afterAll(() => h.dispose());

const run = (command: Parameters<typeof runDatabaseCommand>[0], options: Record<string, string | string[] | boolean>) =>
  runDatabaseCommand(command, options, { db: h.db, baseUrl: 'http://inntak.test' }) as Promise<Record<string, unknown>>;

async function cli(...args: string[]): Promise<unknown> {
  const { stdout } = await promisify(execFile)(process.execPath, [MAIN, ...args], { env: { ...process.env, DATABASE_URL: h.url, LOG_LEVEL: 'error' } });
  return JSON.parse(stdout);
}

describe('inntak publication add, publish, ab evaluate', () => {
  it('publication add makes a publication the owner owns; publish publishes a node in it', async () => {
    const { id } = await run('publication add', { slug: 'cli-blad', title: 'CLI-bladet', owner });
    const row = await h.db.selectFrom('nodes').select('metadata').where('id', '=', id as string).executeTakeFirstOrThrow();
    expect(row.metadata).toEqual({ publication: { slug: 'cli-blad', title: 'CLI-bladet', about: '', domains: [], language: 'nb' } });
    const article = await createNode(storesOn(h.db).graph, { personId: owner, isAdmin: false }, { node_kind: 'content', title: 'Sak' });
    const published = await run('publish', { publication: id as string, node: article.id });
    const edge = await h.db.selectFrom('edges').selectAll().where('id', '=', published.edge_id as string).executeTakeFirstOrThrow();
    expect(edge).toMatchObject({ source_id: article.id, target_id: id, edge_type: 'published_in' });
  });

  it('run as a program: --domain may be given more than once, and ab evaluate prints its decisions as JSON', async () => {
    const made = (await cli('publication', 'add', '--slug', 'cli-domener', '--title', 'D', '--owner', owner, '--domain', 'a.example.no', '--domain', 'b.example.no')) as { id: string };
    const row = await h.db.selectFrom('nodes').select('metadata').where('id', '=', made.id).executeTakeFirstOrThrow();
    expect((row.metadata.publication as { domains: string[] }).domains).toEqual(['a.example.no', 'b.example.no']);
    expect(await cli('ab', 'evaluate')).toEqual([]);
  });

  it('ab results --publication prints the tests of a publication with counts, intervals, p and why undecided', async () => {
    const { id: publicationId } = (await run('publication add', { slug: 'cli-ab', title: 'AB', owner })) as { id: string };
    const article = await createNode(storesOn(h.db).graph, { personId: owner, isAdmin: false }, { node_kind: 'content', title: 'Sak' });
    await run('publish', { publication: publicationId, node: article.id });
    const actor = { personId: owner, isAdmin: false };
    const a = await createVariant(storesOn(h.db).publishing, actor, { publication_id: publicationId, article_id: article.id, variant_type: 'headline', title: 'A' });
    const b = await createVariant(storesOn(h.db).publishing, actor, { publication_id: publicationId, article_id: article.id, variant_type: 'headline', title: 'B' });
    await recordAbCounts(h.db, [
      { variant_edge_id: a.edge_id, hour_of_week: 1, impressions: 50, clicks: 5 },
      { variant_edge_id: b.edge_id, hour_of_week: 1, impressions: 40, clicks: 2 },
    ]);
    const printed = (await cli('ab', 'results', '--publication', publicationId)) as { publication_id: string; tests: Array<Record<string, unknown>> };
    expect(printed.publication_id).toBe(publicationId);
    expect(printed.tests).toHaveLength(1);
    expect(printed.tests[0]).toMatchObject({ article_id: article.id, state: 'testing', round: 1, undecided: { reason: 'too_few_impressions' } });
    expect(printed.tests[0]!.variants).toEqual(expect.arrayContaining([expect.objectContaining({ edge_id: a.edge_id, impressions: 50, clicks: 5, ctr: expect.objectContaining({ estimate: 0.1 }) })]));
    await expect(cli('ab', 'results', '--publication', 'not-an-id')).rejects.toMatchObject({ code: 2 });
  });
});
