import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { createMediaNode } from '@inntak/postgres/media';
import { enqueueJob } from '@inntak/postgres/jobs';
import { OWNER_SUBJECT, setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { addCollectionPeople } from '../__tests__/collection-people.js';
import { connectStream, startApiInstance, type StreamClient } from '../__tests__/realtime-helpers.js';
import type { ApiServer } from '../api-server.js';
import { createCollection, createNode } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

let ctx: TestContext;
let api: ApiServer;
let owner: string;
let member: { id: string; authorization: string };
let reader: { id: string; authorization: string };
let stranger: { id: string; authorization: string };
let roomId: string;
const clients: StreamClient[] = [];

beforeAll(async () => {
  ctx = await setupTestContext();
  api = await startApiInstance(ctx);
  owner = await ctx.ownerAuthorization();
  ({ member, reader, stranger } = await addCollectionPeople(ctx, api.server, owner));
  roomId = (await createNode(storesOn(ctx.database.db).graph, { personId: ctx.ownerId, isAdmin: false }, { node_kind: 'communication', title: 'Studio A', collection_id: ctx.collectionId })).id;
});
afterAll(async () => {
  for (const client of clients) client.close();
  await api.close();
  await ctx.close();
});

function post(path: string, authorization: string, body: object) {
  return request(api.server).post(path).set('Authorization', authorization).send(body);
}

async function connect(subject: string): Promise<StreamClient> {
  const client = await connectStream(api.url, await ctx.tokenFor(subject));
  clients.push(client);
  return client;
}

async function channel(label = 'Vert'): Promise<Record<string, unknown>> {
  const res = await post('/intentions/create_mixer_channel', owner, { room_id: roomId, label });
  expect(res.status).toBe(201);
  return res.body;
}

describe('mixer operations', () => {
  it('create_mixer_channel: an admin of the room creates a channel and gets its state', async () => {
    const res = await post('/intentions/create_mixer_channel', owner, { room_id: roomId, label: 'Gjest 1', gain_db: -6, effects: { high_pass: { cutoff_hz: 120 } }, offset_ms: 1500 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      room_id: roomId,
      node_id: null,
      label: 'Gjest 1',
      gain_db: -6,
      muted: false,
      effects: { high_pass: { enabled: true, cutoff_hz: 120 } },
      offset_ms: 1500,
      role: 'guest',
      updated_at: expect.any(String),
    });
  });

  it('create_mixer_channel needs admin on the room: a member gets 403, a stranger 404', async () => {
    const count = async () => (await ctx.database.db.selectFrom('mixer_channels').select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow()).n;
    const before = await count();
    expect((await post('/intentions/create_mixer_channel', member.authorization, { room_id: roomId, label: 'x' })).status).toBe(403);
    const hidden = await post('/intentions/create_mixer_channel', stranger.authorization, { room_id: roomId, label: 'x' });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: 'Finnes ikke: room_id' });
    expect(await count()).toBe(before);
  });

  it('set_gain, set_mute and toggle_effect: a member changes the channel and gets its new state', async () => {
    const ch = await channel();
    const gain = await post('/intentions/set_gain', member.authorization, { channel_id: ch.id, gain_db: 6.5 });
    expect(gain.status).toBe(200);
    expect(gain.body).toMatchObject({ id: ch.id, gain_db: 6.5, muted: false });
    expect((await post('/intentions/set_mute', member.authorization, { channel_id: ch.id, muted: true })).body).toMatchObject({ gain_db: 6.5, muted: true });
    expect((await post('/intentions/toggle_effect', member.authorization, { channel_id: ch.id, effect: 'fade' })).body.effects).toEqual({ fade: { enabled: true, fade_in_ms: 0, fade_out_ms: 0 } });
    expect((await post('/intentions/toggle_effect', member.authorization, { channel_id: ch.id, effect: 'fade' })).body.effects).toEqual({ fade: { enabled: false, fade_in_ms: 0, fade_out_ms: 0 } });
    const set = await post('/intentions/set_effect', member.authorization, { channel_id: ch.id, effect: 'compressor', settings: { ratio: 6, threshold_db: -24 } });
    expect(set.body.effects.compressor).toEqual({ enabled: true, threshold_db: -24, ratio: 6, attack_ms: 5, release_ms: 100, makeup_db: 0 });
    expect((await post('/intentions/set_channel_offset', member.authorization, { channel_id: ch.id, offset_ms: 250 })).body.offset_ms).toBe(250);
  });

  it('effects are validated: an unknown effect or parameter, or a value out of range, answers 400 and changes nothing', async () => {
    const ch = await channel();
    expect((await post('/intentions/toggle_effect', owner, { channel_id: ch.id, effect: 'reverb' })).status).toBe(400);
    const range = await post('/intentions/set_effect', owner, { channel_id: ch.id, effect: 'high_pass', settings: { cutoff_hz: 5 } });
    expect(range.status).toBe(400);
    expect(range.body).toEqual({ error: 'Ugyldig forespørsel: high_pass.cutoff_hz: må være et tall fra 20 til 2000' });
    const unknown = await post('/intentions/set_effect', owner, { channel_id: ch.id, effect: 'compressor', settings: { knee_db: 2 } });
    expect(unknown.body).toEqual({ error: 'Ugyldig forespørsel: compressor.knee_db: ukjent parameter' });
    expect((await post('/intentions/create_mixer_channel', owner, { room_id: roomId, label: 'x', effects: { fade: { fade_in_ms: -1 } } })).status).toBe(400);
    const row = await ctx.database.db.selectFrom('mixer_channels').select('effects').where('id', '=', ch.id as string).executeTakeFirstOrThrow();
    expect(row.effects).toEqual({});
  });

  it('gain outside -60..+12 dB answers 400 and changes nothing', async () => {
    const ch = await channel();
    for (const gain_db of [12.5, -61]) {
      const res = await post('/intentions/set_gain', owner, { channel_id: ch.id, gain_db });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^Ugyldig forespørsel: gain_db: /);
    }
    const row = await ctx.database.db.selectFrom('mixer_channels').select('gain_db').where('id', '=', ch.id as string).executeTakeFirstOrThrow();
    expect(row.gain_db).toBe(0);
  });

  it('a reader may not change a channel (403); a stranger and an unknown channel get 404', async () => {
    const ch = await channel();
    expect((await post('/intentions/set_mute', reader.authorization, { channel_id: ch.id, muted: true })).status).toBe(403);
    const hidden = await post('/intentions/set_mute', stranger.authorization, { channel_id: ch.id, muted: true });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: 'Finnes ikke: channel_id' });
    expect((await post('/intentions/set_gain', owner, { channel_id: '01900000-0000-7000-8000-000000000000', gain_db: 0 })).status).toBe(404);
  });

  it('set_mixer_role needs admin on the room', async () => {
    const ch = await channel();
    expect((await post('/intentions/set_mixer_role', member.authorization, { channel_id: ch.id, role: 'host' })).status).toBe(403);
    const res = await post('/intentions/set_mixer_role', owner, { channel_id: ch.id, role: 'host' });
    expect(res.status).toBe(200);
    expect(res.body.role).toBe('host');
    expect((await post('/intentions/set_mixer_role', owner, { channel_id: ch.id, role: 'dj' })).status).toBe(400);
  });
});

describe('the mixer on /ws', () => {
  it('every change reaches the clients who may read the room as mixer_channel_changed with the full channel; others get nothing', async () => {
    const readerClient = await connect('leser');
    const strangerClient = await connect('fremmed');
    const ch = await channel('Strøm');
    const res = await post('/intentions/set_gain', member.authorization, { channel_id: ch.id, gain_db: -12 });
    const event = await readerClient.next((e) => e.type === 'mixer_channel_changed' && e.row.id === ch.id && e.row.gain_db === -12);
    expect(event.row).toEqual(res.body);
    // Barrier: a change the stranger may see arrives after the mixer change would have.
    const open = (await createNode(storesOn(ctx.database.db).graph, { personId: ctx.ownerId, isAdmin: false }, { node_kind: 'content', title: 'åpen', visibility: 'open' })).id;
    await strangerClient.next((e) => e.type === 'node.created' && e.row.id === open);
    expect(strangerClient.of('mixer_channel_changed')).toEqual([]);
  });

  it('initial_sync.mixer holds the channels of the rooms the client may read', async () => {
    const ch = await channel('Synk');
    const readerClient = await connect('leser');
    const strangerClient = await connect('fremmed');
    const sync = readerClient.of('initial_sync')[0]!;
    expect(sync.mixer).toEqual(expect.arrayContaining([expect.objectContaining({ id: ch.id, room_id: roomId, label: 'Synk', offset_ms: 0, effects: {} })]));
    expect(strangerClient.of('initial_sync')[0]!.mixer).toEqual([]);
  });

  it('two editors changing one channel at once: the last write wins and both end with the same state', async () => {
    const ch = await channel('Samtidig');
    const ownerClient = await connect(OWNER_SUBJECT);
    const memberClient = await connect('medlem');
    const writes = [];
    for (let i = 0; i < 10; i++) {
      writes.push(post('/intentions/set_gain', owner, { channel_id: ch.id, gain_db: -i }));
      writes.push(post('/intentions/set_gain', member.authorization, { channel_id: ch.id, gain_db: -20 - i }));
      writes.push(post('/intentions/toggle_effect', i % 2 ? owner : member.authorization, { channel_id: ch.id, effect: 'compressor' }));
    }
    const answers = await Promise.all(writes);
    expect(answers.map((a) => a.status)).toEqual(writes.map(() => 200));
    const final = await ctx.database.db.selectFrom('mixer_channels').selectAll().where('id', '=', ch.id as string).executeTakeFirstOrThrow();
    // Ten toggles, none lost: the effect is back off.
    expect(final.effects).toMatchObject({ compressor: { enabled: false } });
    const last = async (client: StreamClient) => {
      await client.next((e) => e.type === 'mixer_channel_changed' && e.row.id === ch.id && e.row.updated_at === final.updated_at.toISOString(), 5000);
      return client.of('mixer_channel_changed', ch.id as string).at(-1)!.row;
    };
    const [seenByOwner, seenByMember] = await Promise.all([last(ownerClient), last(memberClient)]);
    expect(seenByOwner).toEqual(seenByMember);
    expect(seenByOwner).toMatchObject({ gain_db: final.gain_db, effects: { compressor: { enabled: false, ratio: 4 } }, offset_ms: 0 });
  });
});

describe('sources and render_mix', () => {
  /** A media node owned by `ownerId` (rows only: these checks never read the file). */
  const media = async (ownerId: string, media_type: 'audio' | 'image') =>
    (
      await createMediaNode(ctx.database.db, {
        ownerId,
        title: 'kilde',
        metadata: { media_type, mime: media_type === 'audio' ? 'audio/wav' : 'image/png', bytes: 1, generated: false, regenerable: false, last_accessed_at: new Date().toISOString() },
      })
    ).id;

  it('a source is an audio media node the caller may read: an image is 400, another collection’s audio 404', async () => {
    const voice = await media(ctx.collectionId, 'audio');
    const picture = await media(ctx.collectionId, 'image');
    const elsewhere = (await createCollection(storesOn(ctx.database.db).graph, { title: 'Andres', ownerId: stranger.id })).id;
    const hidden = await media(elsewhere, 'audio');
    const ok = await post('/intentions/create_mixer_channel', owner, { room_id: roomId, label: 'Stemme', node_id: voice });
    expect(ok.status).toBe(201);
    expect(ok.body.node_id).toBe(voice);
    const image = await post('/intentions/create_mixer_channel', owner, { room_id: roomId, label: 'Bilde', node_id: picture });
    expect(image.body).toEqual({ error: 'Ugyldig forespørsel: node_id: kilden må være en lydfil, ikke image' });
    const theirs = await post('/intentions/set_channel_source', member.authorization, { channel_id: ok.body.id, node_id: hidden });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ error: 'Finnes ikke: node_id' });
    expect((await post('/intentions/set_channel_source', member.authorization, { channel_id: ok.body.id, node_id: null })).body.node_id).toBeNull();
  });

  it('a room is a communication node; render_mix queues the job for a member of it', async () => {
    const article = (await createNode(storesOn(ctx.database.db).graph, { personId: ctx.ownerId, isAdmin: false }, { node_kind: 'content', title: 'Sak', collection_id: ctx.collectionId })).id;
    const notRoom = await post('/intentions/create_mixer_channel', owner, { room_id: article, label: 'x' });
    expect(notRoom.body).toEqual({ error: 'Ugyldig forespørsel: room_id: et rom er en communication-node, ikke content' });
    expect((await post('/intentions/render_mix', reader.authorization, { room_id: roomId })).status).toBe(403);
    expect((await post('/intentions/render_mix', member.authorization, { room_id: roomId, target_lufs: 0 })).status).toBe(400);
    const queued = await post('/intentions/render_mix', member.authorization, { room_id: roomId, target_lufs: -18 });
    expect(queued.status).toBe(202);
    const job = await ctx.database.db.selectFrom('job_queue').select(['job_type', 'payload']).where('id', '=', String(queued.body.job_id)).executeTakeFirstOrThrow();
    expect(job).toEqual({ job_type: 'render_mix', payload: { room_id: roomId, target_lufs: -18, requested_by: member.id } });
  });
});

describe('live sessions', () => {
  const graphilePriority = async (jobId: number) =>
    (await sql<{ priority: number }>`select j.priority from graphile_worker.jobs j join job_queue q on q.worker_job_id = j.id where q.id = ${jobId}`.execute(ctx.database.db)).rows[0]!.priority;

  it('start_live_session records the room as live and re-prioritises queued jobs; end_live_session gives them their priority back', async () => {
    const jobId = await enqueueJob(ctx.database.db, 'tts_generate', { node_id: roomId });
    expect(await graphilePriority(jobId)).toBe(5);
    const started = await post('/intentions/start_live_session', owner, { room_id: roomId });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ room_id: roomId, live: true, ended_at: null });
    expect(started.body.reprioritised).toBeGreaterThanOrEqual(1);
    // tts_generate: base priority 5, livekit_priority_adj 10 (003.do.jobs.sql).
    expect(await graphilePriority(jobId)).toBe(15);
    const history = await ctx.database.db.selectFrom('job_queue').select('priority').where('id', '=', String(jobId)).executeTakeFirstOrThrow();
    expect(history.priority).toBe(15);
    const rooms = await ctx.database.db.selectFrom('live_rooms').selectAll().where('room_id', '=', roomId).execute();
    expect(rooms).toEqual([expect.objectContaining({ ended_at: null })]);

    const ended = await post('/intentions/end_live_session', owner, { room_id: roomId });
    expect(ended.body).toMatchObject({ live: false, ended_at: expect.any(String) });
    expect(await graphilePriority(jobId)).toBe(5);
  });

  it('needs admin on the room; ending a room that is not live answers 409', async () => {
    expect((await post('/intentions/start_live_session', member.authorization, { room_id: roomId })).status).toBe(403);
    expect((await post('/intentions/start_live_session', stranger.authorization, { room_id: roomId })).status).toBe(404);
    const res = await post('/intentions/end_live_session', owner, { room_id: roomId });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'Konflikt: rommet har ingen aktiv direktesending' });
  });
});
