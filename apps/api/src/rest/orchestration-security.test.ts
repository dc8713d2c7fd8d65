import { describe, expect, it } from '@jest/globals';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { ctx, owner, post, setupOwnerScene } from '../__tests__/owner-scene.js';

// Managing orchestrations attacked as an outsider would (docs/security.md, "Third attack (this round)").

setupOwnerScene();

const POST_WITH_SECRET = (url: string) =>
  `steps:\n  - action: http_post\n    with: { url: "${url}", body: { tekst: "{event.input.tekst}" }, headers: { Authorization: "Bearer {secrets.CHAT_TOKEN}" } }\n`;

/** What the worker hands the runner for the orchestration's headers. */
const secretsTheWorkerUses = (id: string) => new PostgresOrchestrationStore(ctx.database.db).secretsOf(id);

async function manualWithSecret(): Promise<string> {
  const res = await post('/intentions/create_node', owner, {
    node_kind: 'orchestration',
    title: 'Til chatten',
    content: POST_WITH_SECRET('https://chat.example/hook'),
    metadata: { trigger: { event: 'manual' } },
    collection_id: ctx.collectionId,
  });
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  expect((await post('/intentions/set_orchestration_secret', owner, { id, name: 'CHAT_TOKEN', value: 'eierens-hemmelige-token' })).status).toBe(200);
  return id;
}

describe('secrets of an orchestration another admin takes over', () => {
  it('are dropped when an admin who did not set them changes the script: it cannot send them to a host of its choosing', async () => {
    const id = await manualWithSecret();
    const admin = await ctx.addPerson('samling-admin');
    await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: ctx.collectionId, access: 'admin' }).expect(200);
    // The admin points the header at their own listener (any host on ORCHESTRATION_HTTP_ALLOW, such
    // as this service's own intake, whose delivery log they can read) and runs it.
    const res = await post('/intentions/update_orchestration', admin.authorization, { id, script: POST_WITH_SECRET('https://chat.example/admins-egen-krok') });
    expect(res.status).toBe(200);
    expect(res.body.runs_as).toBe(admin.id);
    expect([...(await secretsTheWorkerUses(id)).values()]).not.toContain('eierens-hemmelige-token');
    expect((await post('/intentions/run_orchestration', admin.authorization, { id, input: { tekst: 'hei' } })).status).toBe(202);
    expect((await secretsTheWorkerUses(id)).size).toBe(0);
  });

  it('are kept when the one it runs as changes it, and a new admin may set their own', async () => {
    const id = await manualWithSecret();
    expect((await post('/intentions/update_orchestration', owner, { id, script: POST_WITH_SECRET('https://chat.example/ny-krok') })).status).toBe(200);
    expect((await secretsTheWorkerUses(id)).get('CHAT_TOKEN')).toBe('eierens-hemmelige-token');
    const admin = await ctx.addPerson('ny-admin');
    await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: ctx.collectionId, access: 'admin' }).expect(200);
    await post('/intentions/update_orchestration', admin.authorization, { id, title: 'Overtatt' }).expect(200);
    expect((await post('/intentions/set_orchestration_secret', admin.authorization, { id, name: 'CHAT_TOKEN', value: 'adminens-eget' })).status).toBe(200);
    expect((await secretsTheWorkerUses(id)).get('CHAT_TOKEN')).toBe('adminens-eget');
  });
});

describe('a manual run another admin starts', () => {
  it("gives its creator's script no input of theirs (403, nothing queued); without input it runs as written, and once taken over with their input as them", async () => {
    const id = await manualWithSecret();
    const admin = await ctx.addPerson('medadmin');
    await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: ctx.collectionId, access: 'admin' }).expect(200);
    const runs = async () => Number((await ctx.database.pool.query('select count(*) as n from orchestration_runs where orchestration_id = $1', [id])).rows[0].n);

    // Input would steer the creator's rights (an id read, a text posted with the creator's token).
    const refused = await post('/intentions/run_orchestration', admin.authorization, { id, input: { tekst: 'fra medadmin' } });
    expect([refused.status, refused.body]).toEqual([403, { error: 'Bare den orkestreringen kjører som kan gi den input; ta den over med update_orchestration først' }]);
    expect(await runs()).toBe(0);

    expect((await post('/intentions/run_orchestration', admin.authorization, { id, input: {} })).status).toBe(202);
    expect((await post('/intentions/run_orchestration', owner, { id, input: { tekst: 'fra eieren' } })).status).toBe(202);
    expect(await runs()).toBe(2);

    expect((await post('/intentions/update_orchestration', admin.authorization, { id, title: 'Overtatt' })).body.runs_as).toBe(admin.id);
    expect((await post('/intentions/run_orchestration', admin.authorization, { id, input: { tekst: 'nå som meg selv' } })).status).toBe(202);
    expect(await runs()).toBe(3);
  });
});

describe('a condition bounded in what it costs each event', () => {
  const comparisons = (n: number) => ({
    any: Array.from({ length: Math.ceil(n / 50) }, (_, i) => ({
      any: Array.from({ length: Math.min(50, n - i * 50) }, () => ({ value: '{event.node.content}', matches: `*${'a'.repeat(98)}?${'a'.repeat(98)}b*` })),
    })),
  });
  const create = (where: object) =>
    post('/intentions/create_node', owner, {
      node_kind: 'orchestration',
      title: 'Dyr',
      content: 'steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: sett, value: true }\n',
      metadata: { trigger: { event: 'node.created', where } },
      collection_id: ctx.collectionId,
    });

  it('a trigger whose where holds more than 64 comparisons (each reading up to 64 K characters of the event) answers 400 and saves nothing', async () => {
    const before = await ctx.database.pool.query(`select count(*)::int as n from nodes where node_kind = 'orchestration'`);
    const res = await create(comparisons(2500));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Ugyldig forespørsel: metadata.trigger.where: et vilkår kan ha høyst 64 sammenligninger');
    const after = await ctx.database.pool.query(`select count(*)::int as n from nodes where node_kind = 'orchestration'`);
    expect(after.rows[0].n).toBe(before.rows[0].n);
    expect((await create(comparisons(64))).status).toBe(201);
  });
});
