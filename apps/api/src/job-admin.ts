import express, { type Express, type RequestHandler } from 'express';
import { AppError } from '@inntak/core';
import { JOB_STATUSES, type JobRule, type JobStatus, type LiveRoomStatus } from '@inntak/jobs';
import { cancelJob, diskStatus, listJobs, resourceStatus, retryJob, updateRule, type Db } from '@inntak/postgres';
import { callerOf } from './auth.js';

export interface JobAdminDeps {
  db: Db;
  liveRooms: LiveRoomStatus;
}

/** Admin = a system administrator (table system_admins, `inntak person add --admin`). */
function requireAdmin(): RequestHandler {
  return (_req, res, next) => {
    if (!callerOf(res).isAdmin) throw new AppError('forbidden', { detail: 'only system administrators' });
    next();
  };
}

/** The job listing, retry/cancel intentions and the resource endpoints (docs/jobs.md). */
export function installJobAdmin(app: Express, auth: RequestHandler, deps: JobAdminDeps): void {
  const admin = [auth, requireAdmin()];
  const json = express.json({ limit: '16kb' });

  app.get('/admin/jobs', ...admin, async (req, res) => {
    const status = optionalString(req.query.status, 'status');
    if (status !== undefined && !(JOB_STATUSES as readonly string[]).includes(status)) {
      throw new AppError('invalid_input', { detail: `status must be one of ${JOB_STATUSES.join(', ')}` });
    }
    const limit = optionalInteger(req.query.limit, 'limit', 1, 200) ?? 50;
    const before = optionalInteger(req.query.cursor, 'cursor', 1, Number.MAX_SAFE_INTEGER);
    res.json(await listJobs(deps.db, { type: optionalString(req.query.type, 'type'), status: status as JobStatus | undefined, limit, before }));
  });

  app.post('/intentions/retry_job', ...admin, json, async (req, res) => {
    res.json({ job: await retryJob(deps.db, jobId(req.body)) });
  });

  app.post('/intentions/cancel_job', ...admin, json, async (req, res) => {
    res.json({ job: await cancelJob(deps.db, jobId(req.body)) });
  });

  app.get('/admin/resources', ...admin, async (_req, res) => {
    res.json(await resourceStatus(deps.db, deps.liveRooms));
  });

  app.get('/admin/resources/disk', ...admin, async (req, res) => {
    res.json(await diskStatus(deps.db, optionalInteger(req.query.limit, 'limit', 1, 1000) ?? 100));
  });

  app.post('/admin/resources/update_rule', ...admin, json, async (req, res) => {
    res.json({ rule: await updateRule(deps.db, ruleChange(req.body)) });
  });
}

function body(raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AppError('invalid_input', { detail: 'body must be a JSON object' });
  return raw as Record<string, unknown>;
}

function jobId(raw: unknown): number {
  const value = body(raw).job_id;
  const id = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) throw new AppError('invalid_input', { detail: 'job_id must be a positive integer' });
  return id;
}

const RULE_FIELDS = {
  base_priority: ['basePriority', 'number'],
  cpu_weight: ['cpuWeight', 'number'],
  max_concurrent: ['maxConcurrent', 'number'],
  livekit_priority_adj: ['livekitPriorityAdj', 'number'],
  block_during_livekit: ['blockDuringLivekit', 'boolean'],
  timeout: ['timeoutSeconds', 'number'],
} as const;

function ruleChange(raw: unknown): { jobType: string } & Partial<Omit<JobRule, 'jobType'>> {
  const input = body(raw);
  if (typeof input.job_type !== 'string' || input.job_type === '') throw new AppError('invalid_input', { detail: 'job_type is required' });
  const change: Record<string, unknown> = { jobType: input.job_type };
  for (const key of Object.keys(input)) {
    if (key === 'job_type') continue;
    const field = RULE_FIELDS[key as keyof typeof RULE_FIELDS];
    if (!field) throw new AppError('invalid_input', { detail: `unknown field ${key}` });
    if (typeof input[key] !== field[1]) throw new AppError('invalid_input', { detail: `${key} must be a ${field[1]}` });
    change[field[0]] = input[key];
  }
  if (Object.keys(change).length === 1) throw new AppError('invalid_input', { detail: 'nothing to change' });
  return change as { jobType: string } & Partial<Omit<JobRule, 'jobType'>>;
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new AppError('invalid_input', { detail: `${name} must be given once` });
  return value;
}

function optionalInteger(value: unknown, name: string, min: number, max: number): number | undefined {
  const raw = optionalString(value, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new AppError('invalid_input', { detail: `${name} must be an integer from ${min} to ${max}` });
  return n;
}
