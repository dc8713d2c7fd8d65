import { setTimeout as sleep } from 'node:timers/promises';
import { LocalFileStore, StatfsDiskProbe } from '@inntak/files';
import { RATE_RANGE, runPrune, VOICE_PATTERN } from '@inntak/media';
import { type Db } from '@inntak/postgres';
import { enqueueJob, getJob } from '@inntak/postgres/jobs';
import { mediaOfJob, postgresPruneCatalog } from '@inntak/postgres/media';
import { UsageError, type Options } from './commands.js';

export const MEDIA_COMMANDS = ['tts', 'prune'] as const;
export type MediaCommand = (typeof MEDIA_COMMANDS)[number];

export function isMediaCommand(command: string): command is MediaCommand {
  return (MEDIA_COMMANDS as readonly string[]).includes(command);
}

export interface MediaCommandDeps {
  db: Db;
  storageDir: string;
  /** How long `tts` waits for its job (a worker must be running). */
  waitMs?: number;
  log?: (message: string) => void;
}

export async function runMediaCommand(command: MediaCommand, options: Options, deps: MediaCommandDeps): Promise<unknown> {
  if (command === 'prune') {
    const report = await runPrune(
      { catalog: postgresPruneCatalog(deps.db), files: new LocalFileStore(deps.storageDir), probe: new StatfsDiskProbe(), storageDir: deps.storageDir },
      { dryRun: options['dry-run'] === true, trigger: 'cli' },
    );
    return { mode: report.mode, disk_percent: report.disk_percent, deleted: report.deleted, freed_bytes: report.freed_bytes };
  }
  return generateTts(options, deps);
}

/** `inntak tts --node ID`: queues tts_generate like POST /intentions/generate_tts, waits, prints the media id. */
async function generateTts(options: Options, deps: MediaCommandDeps): Promise<unknown> {
  const nodeId = options.node;
  if (typeof nodeId !== 'string' || !/^[0-9a-f-]{36}$/i.test(nodeId)) throw new UsageError('--node must be a node id');
  const voice = typeof options.voice === 'string' ? options.voice : undefined;
  if (voice !== undefined && !VOICE_PATTERN.test(voice)) throw new UsageError('--voice must be an eSpeak NG voice name, e.g. nb');
  const rate = typeof options.rate === 'string' ? Number(options.rate) : undefined;
  if (rate !== undefined && (!Number.isInteger(rate) || rate < RATE_RANGE.min || rate > RATE_RANGE.max)) {
    throw new UsageError(`--rate must be ${RATE_RANGE.min}–${RATE_RANGE.max} words per minute`);
  }
  const exists = await deps.db.selectFrom('nodes').select('id').where('id', '=', nodeId).executeTakeFirst();
  if (!exists) throw new UsageError(`node ${nodeId} does not exist`);
  const jobId = await enqueueJob(deps.db, 'tts_generate', { node_id: nodeId, ...(voice ? { voice } : {}), ...(rate ? { rate } : {}) }, { maxAttempts: 3 });
  deps.log?.(`queued tts_generate job ${jobId}; waiting for a worker`);
  const deadline = Date.now() + (deps.waitMs ?? 15 * 60_000);
  for (;;) {
    const job = await getJob(deps.db, jobId);
    if (job.status === 'completed') break;
    if (job.status === 'cancelled' || job.status === 'failed') {
      throw new Error(`tts_generate job ${jobId} ${job.status}: ${job.last_error ?? 'no error recorded'}`);
    }
    if (Date.now() > deadline) throw new Error(`tts_generate job ${jobId} did not finish in time (is a worker running?)`);
    await sleep(250);
  }
  const media = await mediaOfJob(deps.db, jobId);
  if (!media) throw new Error(`tts_generate job ${jobId} completed but its media node is gone (pruned?)`);
  return { job_id: jobId, media_id: media.id, bytes: media.metadata.bytes, duration_s: media.metadata.duration_s };
}
