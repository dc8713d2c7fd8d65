import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { app, ctx, owner, post, setupOwnerScene } from '../__tests__/owner-scene.js';

setupOwnerScene();

function read(id: string, authorization: string) {
  return request(app).get(`/nodes/${id}`).set('Authorization', authorization);
}

async function collection(authorization = owner): Promise<string> {
  const res = await post('/intentions/create_collection', authorization, { title: 'Samling' });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('POST /intentions/create_collection', () => {
  it('creates a hidden collection the caller owns through an owner edge', async () => {
    const id = await collection();
    const res = await read(id, owner);
    expect(res.status).toBe(200);
    expect(res.body.node).toMatchObject({ node_kind: 'collection', visibility: 'hidden', title: 'Samling' });
    expect(res.body.edges).toEqual([expect.objectContaining({ edge_type: 'owner', target_id: id, system: false })]);
  });

  it('answers 400 naming title when it is empty', async () => {
    const res = await post('/intentions/create_collection', owner, { title: '' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Ugyldig forespørsel: title: /);
  });
});

describe('POST /intentions/create_node', () => {
  it('creates a node in a collection, and the collection’s members may read it', async () => {
    const c = await collection();
    const member = await ctx.addPerson('cn-member');
    await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: c, access: 'member' });
    const res = await post('/intentions/create_node', owner, { node_kind: 'content', title: 'Notat', collection_id: c });
    expect(res.status).toBe(201);
    expect(res.body.edge_ids).toHaveLength(2);
    expect((await read(res.body.id, member.authorization)).status).toBe(200);
  });

  it('needs member on the collection: a reader gets 403, a stranger 404', async () => {
    const c = await collection();
    const reader = await ctx.addPerson('cn-reader');
    const stranger = await ctx.addPerson('cn-stranger');
    await post('/intentions/grant_access', owner, { subject_id: reader.id, object_id: c, access: 'reader' });
    expect((await post('/intentions/create_node', reader.authorization, { node_kind: 'content', collection_id: c })).status).toBe(403);
    expect((await post('/intentions/create_node', stranger.authorization, { node_kind: 'content', collection_id: c })).status).toBe(404);
  });

  it('answers 400 naming node_kind for kinds with their own operation', async () => {
    const res = await post('/intentions/create_node', owner, { node_kind: 'webhook' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Ugyldig forespørsel: node_kind: /);
  });

  it('answers 400 naming visibility for a visibility the spec does not know', async () => {
    const res = await post('/intentions/create_node', owner, { node_kind: 'content', visibility: 'secret' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Ugyldig forespørsel: visibility: /);
  });
});

describe('POST /intentions/grant_access and revoke_access', () => {
  it('grant_access member lets the person read the collection and its nodes; revoke_access takes it back', async () => {
    const c = await collection();
    const node = (await post('/intentions/create_node', owner, { node_kind: 'content', collection_id: c })).body.id;
    const person = await ctx.addPerson('ga-person');
    expect((await read(node, person.authorization)).status).toBe(404);
    const granted = await post('/intentions/grant_access', owner, { subject_id: person.id, object_id: c, access: 'member' });
    expect(granted.status).toBe(200);
    expect((await read(node, person.authorization)).status).toBe(200);
    const revoked = await post('/intentions/revoke_access', owner, { subject_id: person.id, object_id: c });
    expect(revoked.body).toEqual({ removed: 1 });
    expect((await read(node, person.authorization)).status).toBe(404);
  });

  it('answers 403 Ingen tilgang when a member grants, and when an admin grants owner', async () => {
    const c = await collection();
    const member = await ctx.addPerson('ga-member');
    const admin = await ctx.addPerson('ga-admin');
    const other = await ctx.addPerson('ga-other');
    await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: c, access: 'member' });
    await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: c, access: 'admin' });
    const byMember = await post('/intentions/grant_access', member.authorization, { subject_id: other.id, object_id: c, access: 'reader' });
    expect(byMember.status).toBe(403);
    expect(byMember.body).toEqual({ error: 'Ingen tilgang' });
    expect((await post('/intentions/grant_access', admin.authorization, { subject_id: other.id, object_id: c, access: 'owner' })).status).toBe(403);
    expect((await post('/intentions/grant_access', admin.authorization, { subject_id: other.id, object_id: c, access: 'member' })).status).toBe(200);
  });

  it('answers 400 naming access for a level outside reader, member, admin, owner', async () => {
    const res = await post('/intentions/grant_access', owner, { subject_id: ctx.ownerId, object_id: ctx.collectionId, access: 'superuser' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Ugyldig forespørsel: access: /);
  });

  it('answers 404 naming subject_id for a subject that does not exist', async () => {
    const res = await post('/intentions/grant_access', owner, { subject_id: '0190c5a0-0000-7000-8000-000000000000', object_id: ctx.collectionId, access: 'member' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Finnes ikke: subject_id' });
  });
});

describe('POST /intentions/create_edge and delete_edge', () => {
  it('a member_of edge grants member; deleting it removes what it granted', async () => {
    const c = await collection();
    const person = await ctx.addPerson('ce-person');
    const edge = await post('/intentions/create_edge', owner, { source_id: person.id, target_id: c, edge_type: 'member_of' });
    expect(edge.status).toBe(201);
    expect((await read(c, person.authorization)).status).toBe(200);
    const deleted = await post('/intentions/delete_edge', owner, { edge_id: edge.body.id });
    expect(deleted.status).toBe(200);
    expect((await read(c, person.authorization)).status).toBe(404);
  });

  it('a belongs_to edge shares the target collection’s access with the source node', async () => {
    const c = await collection();
    const person = await ctx.addPerson('ce-bt');
    await post('/intentions/grant_access', owner, { subject_id: person.id, object_id: c, access: 'reader' });
    const node = (await post('/intentions/create_node', owner, { node_kind: 'content' })).body.id;
    expect((await read(node, person.authorization)).status).toBe(404);
    expect((await post('/intentions/create_edge', owner, { source_id: node, target_id: c, edge_type: 'belongs_to' })).status).toBe(201);
    expect((await read(node, person.authorization)).status).toBe(200);
  });

  it('answers 409 to a belongs_to edge that would close a cycle', async () => {
    const c = await collection();
    const node = (await post('/intentions/create_node', owner, { node_kind: 'content', collection_id: c })).body.id;
    const res = await post('/intentions/create_edge', owner, { source_id: c, target_id: node, edge_type: 'belongs_to' });
    expect(res.status).toBe(409);
  });

  it('answers 403 when a member adds a belongs_to edge from a node they only read', async () => {
    const c = await collection();
    const member = await ctx.addPerson('ce-member');
    await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: c, access: 'member' });
    const node = (await post('/intentions/create_node', owner, { node_kind: 'content', collection_id: c })).body.id;
    const mine = await collection(member.authorization);
    expect((await post('/intentions/create_edge', member.authorization, { source_id: node, target_id: mine, edge_type: 'belongs_to' })).status).toBe(403);
  });

  it('answers 400 naming edge_type when it is not a snake_case name', async () => {
    const res = await post('/intentions/create_edge', owner, { source_id: ctx.ownerId, target_id: ctx.collectionId, edge_type: 'Drop Table' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Ugyldig forespørsel: edge_type: /);
  });
});

describe('atomicity', () => {
  it('a write whose access propagation fails leaves nothing behind: no edge, no row', async () => {
    const c = await collection();
    const person = await ctx.addPerson('atomic');
    // A real failure inside PostgreSQL: this person's access rows cannot be written.
    await sql.raw(`create function refuse_row() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$;
      create trigger refuse_row before insert on node_access for each row
        when (new.subject_id = '${person.id}') execute function refuse_row();`).execute(ctx.database.db);
    const res = await post('/intentions/create_edge', owner, { source_id: person.id, target_id: c, edge_type: 'member_of' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Intern feil' });
    const edges = await ctx.database.db.selectFrom('edges').select('id').where('source_id', '=', person.id).execute();
    expect(edges).toEqual([]);
  });
});

describe('POST /intentions/tag_node', () => {
  it('tags a node: one tag node per normalized name, and tagging twice returns the same edge', async () => {
    const c = await collection();
    const a = await post('/intentions/create_node', owner, { node_kind: 'content', title: 'A', collection_id: c });
    const b = await post('/intentions/create_node', owner, { node_kind: 'content', title: 'B', collection_id: c });
    const first = await post('/intentions/tag_node', owner, { node_id: a.body.id, tag: '  Norsk  Politikk ' });
    expect(first.status).toBe(201);
    expect(first.body.tag).toBe('norsk politikk');
    const again = await post('/intentions/tag_node', owner, { node_id: a.body.id, tag: 'norsk politikk' });
    expect(again.body).toEqual(first.body);
    const other = await post('/intentions/tag_node', owner, { node_id: b.body.id, tag: 'NORSK POLITIKK' });
    expect(other.body.tag_id).toBe(first.body.tag_id);
    expect(other.body.edge_id).not.toBe(first.body.edge_id);
    const tagged = await sql<{ n: number }>`
      select count(*)::int as n from edges where target_id = ${first.body.tag_id} and edge_type = 'tagged'`.execute(ctx.database.db);
    expect(tagged.rows[0]!.n).toBe(2);
  });

  it('needs member on the node: a reader gets 403, a stranger 404, and nothing is written', async () => {
    const c = await collection();
    const node = await post('/intentions/create_node', owner, { node_kind: 'content', title: 'N', collection_id: c });
    const reader = await ctx.addPerson('tag-reader');
    await post('/intentions/grant_access', owner, { subject_id: reader.id, object_id: c, access: 'reader' });
    const stranger = await ctx.addPerson('tag-stranger');
    expect((await post('/intentions/tag_node', reader.authorization, { node_id: node.body.id, tag: 'hemmelig' })).status).toBe(403);
    expect((await post('/intentions/tag_node', stranger.authorization, { node_id: node.body.id, tag: 'hemmelig' })).status).toBe(404);
    const tags = await sql<{ n: number }>`select count(*)::int as n from nodes where node_kind = 'tag' and metadata->>'tag' = 'hemmelig'`.execute(ctx.database.db);
    expect(tags.rows[0]!.n).toBe(0);
  });

  it('answers 400 for a tag that is blank or holds a slash', async () => {
    const c = await collection();
    const node = await post('/intentions/create_node', owner, { node_kind: 'content', title: 'N', collection_id: c });
    for (const tag of ['   ', 'a/b']) {
      const res = await post('/intentions/tag_node', owner, { node_id: node.body.id, tag });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/tag/);
    }
  });

  it('answers 400, not 500, for a tag holding a lone surrogate PostgreSQL cannot store, and writes nothing', async () => {
    const c = await collection();
    const node = await post('/intentions/create_node', owner, { node_kind: 'content', title: 'N', collection_id: c });
    const res = await post('/intentions/tag_node', owner, { node_id: node.body.id, tag: 'a\ud800b' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/tag/);
    const edges = await sql<{ n: number }>`select count(*)::int as n from edges where source_id = ${node.body.id} and edge_type = 'tagged'`.execute(ctx.database.db);
    expect(edges.rows[0]!.n).toBe(0);
  });

  it('a tag node cannot be made through create_node', async () => {
    const res = await post('/intentions/create_node', owner, { node_kind: 'tag', title: 'x' });
    expect(res.status).toBe(400);
  });
});
