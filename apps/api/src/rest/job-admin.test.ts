import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import type { Express } from 'express';
import { enqueueJob, recordDiskStatus, startLiveRoom } from '@inntak/postgres/jobs';
import { OWNER_SUBJECT, setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { createPerson } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

let ctx: TestContext;
let app: Express;
let admin: string;
let owner: string;
beforeAll(async () => {
  ctx = await setupTestContext();
  await createPerson(storesOn(ctx.database.db).graph, { subject: 'operator', name: 'Drift', admin: true });
  app = ctx.app();
  admin = `Bearer ${await ctx.tokenFor('operator')}`;
  owner = `Bearer ${await ctx.tokenFor(OWNER_SUBJECT)}`;
});
afterAll(() => ctx.close());

describe('job and resource administration', () => {
  it('is for system administrators only: 401 without a token, 403 for other persons', async () => {
    expect((await request(app).get('/admin/jobs')).status).toBe(401);
    const res = await request(app).get('/admin/jobs').set('Authorization', owner);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Ingen tilgang: kun for systemadministratorer' });
    expect((await request(app).post('/intentions/cancel_job').set('Authorization', owner).send({ job_id: 1 })).status).toBe(403);
  });

  it('GET /admin/jobs lists jobs with status counts, filters and keyset pagination', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push(await enqueueJob(ctx.database.db, 'tts_generate', { node_id: `n${i}` }));
    ids.push(await enqueueJob(ctx.database.db, 'orchestrate', { orchestration_id: 's1', event: { type: 'node.created', id: 'n', depth: 0 } }));

    const first = await request(app).get('/admin/jobs?type=tts_generate&limit=2').set('Authorization', admin);
    expect(first.status).toBe(200);
    expect(first.body.counts).toEqual({ queued: 3, running: 0, completed: 0, failed: 0, cancelled: 0 });
    expect(first.body.jobs.map((j: { id: number }) => j.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.jobs[0]).toMatchObject({ job_type: 'tts_generate', status: 'queued', attempts: 0, max_attempts: 25, payload: { node_id: 'n2' } });
    const second = await request(app).get(`/admin/jobs?type=tts_generate&limit=2&cursor=${first.body.next_cursor}`).set('Authorization', admin);
    expect(second.body.jobs.map((j: { id: number }) => j.id)).toEqual([ids[0]]);
    expect(second.body.next_cursor).toBeNull();

    const bad = await request(app).get('/admin/jobs?status=done').set('Authorization', admin);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^Ugyldig forespørsel: status: /);
  });

  it('cancel_job cancels a queued job; retry_job puts a cancelled or failed job back; wrong states answer 409', async () => {
    const id = await enqueueJob(ctx.database.db, 'orchestrate', { orchestration_id: 's2', event: { type: 'node.created', id: 'n', depth: 0 } });
    const cancelled = await request(app).post('/intentions/cancel_job').set('Authorization', admin).send({ job_id: id });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.job).toMatchObject({ id, status: 'cancelled' });
    const { rows } = await sql<{ n: string }>`select count(*) as n from graphile_worker.jobs where key = ${`inntak:${id}`}`.execute(ctx.database.db);
    expect(rows[0]!.n).toBe('0');

    const again = await request(app).post('/intentions/cancel_job').set('Authorization', admin).send({ job_id: id });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe(`Jobben har feil status for dette: jobb ${id} er cancelled; bare jobber som er queued eller running kan avbrytes`);

    const retried = await request(app).post('/intentions/retry_job').set('Authorization', admin).send({ job_id: String(id) });
    expect(retried.status).toBe(200);
    expect(retried.body.job).toMatchObject({ id, status: 'queued', attempts: 0 });

    const notFailed = await request(app).post('/intentions/retry_job').set('Authorization', admin).send({ job_id: id });
    expect(notFailed.status).toBe(409);
    expect(notFailed.body.error).toMatch(/bare jobber som er failed eller cancelled kan prøves igjen/);

    // A job that used up its attempts (the worker tests fail jobs for real).
    await sql`update job_queue set status = 'failed', attempts = 25, last_error = 'boom' where id = ${id}`.execute(ctx.database.db);
    const fromFailed = await request(app).post('/intentions/retry_job').set('Authorization', admin).send({ job_id: id });
    expect(fromFailed.body.job).toMatchObject({ status: 'queued', attempts: 0, last_error: 'boom' });

    expect((await request(app).post('/intentions/retry_job').set('Authorization', admin).send({ job_id: 987654 })).status).toBe(404);
    const missing = await request(app).post('/intentions/cancel_job').set('Authorization', admin).send({});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/^Ugyldig forespørsel: job_id: /);
  });

  it('POST /admin/resources/update_rule changes a rule and refuses one that breaks the limits', async () => {
    const res = await request(app).post('/admin/resources/update_rule').set('Authorization', admin).send({ job_type: 'tts_generate', max_concurrent: 1, timeout: 120 });
    expect(res.status).toBe(200);
    expect(res.body.rule).toEqual({ job_type: 'tts_generate', base_priority: 5, cpu_weight: 2, max_concurrent: 1, livekit_priority_adj: 10, block_during_livekit: false, timeout: 120 });
    const tooHeavy = await request(app).post('/admin/resources/update_rule').set('Authorization', admin).send({ job_type: 'tts_generate', cpu_weight: 9 });
    expect(tooHeavy.status).toBe(400);
    expect(tooHeavy.body.error).toMatch(/^Ugyldig forespørsel: cpu_weight: /);
    const unknown = await request(app).post('/admin/resources/update_rule').set('Authorization', admin).send({ job_type: 'tts_generate', weight: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/^Ugyldig forespørsel: weight: /);
  });

  it('GET /admin/resources combines running jobs, queue depth, rules, live rooms and disk', async () => {
    await startLiveRoom(ctx.database.db, 'studio');
    await recordDiskStatus(ctx.database.db, { path: '/srv', totalBytes: 1000, freeBytes: 120, usedPercent: 88, level: 'warning' });
    const res = await request(app).get('/admin/resources').set('Authorization', admin);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      limits: { max_running: 3, max_weight: 8 },
      running: [],
      running_weight: 0,
      queue_depth: { tts_generate: 3, orchestrate: 2 },
      live_room: { active: true, rooms: [{ room_id: 'studio' }] },
      disk: { used_percent: 88, level: 'warning', path: '/srv' },
    });
    expect(res.body.rules.map((r: { job_type: string }) => r.job_type)).toEqual(
      expect.arrayContaining(['access_repair', 'orchestrate', 'tts_generate', 'speech_transcription', 'rendering']),
    );

    const disk = await request(app).get('/admin/resources/disk?limit=10').set('Authorization', admin);
    expect(disk.status).toBe(200);
    expect(disk.body.current).toMatchObject({ level: 'warning', used_percent: 88, total_bytes: 1000, free_bytes: 120 });
    expect(disk.body.history).toHaveLength(1);
  });
});
