import { readFile, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

// Loaded in `run`, not at start-up: every `inntak` call parses this table (docs/cli.md, "Speed").
const mediaPackage = () => import('@inntak/media');
import { id, required, UsageError, type CommandContext, type CommandSpec, type Options } from '../command-line.js';

export const tts: CommandSpec = {
  name: 'tts',
  args: '--node ID [--voice V] [--rate WPM]',
  summary: 'read a node aloud: queues tts_generate, waits for a worker, prints the media id (docs/media.md)',
  options: {
    node: id('the node whose title and content are read'),
    voice: { type: 'string', help: 'an eSpeak NG voice (default nb)' },
    rate: { type: 'string', help: 'words per minute, 80 to 450 (default 175)' },
  },
  run: generateTts,
};

export const mediaAdd: CommandSpec = {
  name: 'media add',
  args: '--collection ID --file F [--title T]',
  summary: 'upload a file (audio, image, video) into a collection as POST /media does; prints {id, title, metadata, transcription_job_id} (docs/media.md)',
  options: {
    collection: id('the collection it goes into'),
    file: { type: 'string', help: 'the file: WAV, MP3, Ogg/Opus, FLAC, PNG, JPEG, WebP, MP4 or WebM (read from its bytes)' },
    title: { type: 'string', help: 'a title for the media node' },
  },
  async run(options, { services }) {
    const collectionId = required(options, 'collection');
    const path = required(options, 'file');
    const size = await stat(path).then((s) => (s.isFile() ? s.size : -1), () => -1);
    if (size < 0) throw new UsageError(`--file ${path}: no such file`);
    // Held in memory like an upload: a file past every kind's limit is not read at all.
    if (size > (await services.largestUpload())) throw new UsageError(`--file ${path}: ${size} bytes is more than any upload may be`);
    const title = typeof options.title === 'string' ? options.title : null;
    return services.addMedia({ collection_id: collectionId, bytes: new Uint8Array(await readFile(path)), title });
  },
};

export const prune: CommandSpec = {
  name: 'prune',
  args: '[--dry-run]',
  summary: 'one storage pruning run: {mode, disk_percent, deleted, freed_bytes} (docs/media.md)',
  options: { 'dry-run': { type: 'boolean', help: 'decide and print, delete nothing' } },
  async run(options, { services }) {
    const report = await services.prune({ dryRun: options['dry-run'] === true });
    return { mode: report.mode, disk_percent: report.disk_percent, deleted: report.deleted, freed_bytes: report.freed_bytes };
  },
};

/** `inntak tts --node ID`: queues tts_generate like POST /intentions/generate_tts, waits, prints the media id. */
async function generateTts(options: Options, { services, log, waitMs }: CommandContext): Promise<unknown> {
  const nodeId = options.node;
  if (typeof nodeId !== 'string' || !/^[0-9a-f-]{36}$/i.test(nodeId)) throw new UsageError('--node must be a node id');
  const { RATE_RANGE, VOICE_PATTERN } = await mediaPackage();
  const voice = typeof options.voice === 'string' ? options.voice : undefined;
  if (voice !== undefined && !VOICE_PATTERN.test(voice)) throw new UsageError('--voice must be an eSpeak NG voice name, e.g. nb');
  const rate = typeof options.rate === 'string' ? Number(options.rate) : undefined;
  if (rate !== undefined && (!Number.isInteger(rate) || rate < RATE_RANGE.min || rate > RATE_RANGE.max)) {
    throw new UsageError(`--rate must be ${RATE_RANGE.min}–${RATE_RANGE.max} words per minute`);
  }
  if ((await services.nodeKindOf(nodeId)) === undefined) throw new UsageError(`node ${nodeId} does not exist`);
  const jobId = await services.queueTts({ node_id: nodeId, ...(voice ? { voice } : {}), ...(rate ? { rate } : {}) });
  log?.(`queued tts_generate job ${jobId}; waiting for a worker`);
  const deadline = Date.now() + (waitMs ?? 15 * 60_000);
  for (;;) {
    const job = await services.getJob(jobId);
    if (job.status === 'completed') break;
    if (job.status === 'cancelled' || job.status === 'failed') {
      throw new Error(`tts_generate job ${jobId} ${job.status}: ${job.last_error ?? 'no error recorded'}`);
    }
    if (Date.now() > deadline) throw new Error(`tts_generate job ${jobId} did not finish in time (is a worker running?)`);
    await sleep(250);
  }
  const media = await services.mediaOfJob(jobId);
  if (!media) throw new Error(`tts_generate job ${jobId} completed but its media node is gone (pruned?)`);
  return { job_id: jobId, media_id: media.id, bytes: media.metadata.bytes, duration_s: media.metadata.duration_s };
}
