import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { AppError, isUuid, type Logger } from '@inntak/core';
import {
  DEFAULT_SPEECH_LIMITS,
  DEFAULT_TTS_JOBS_PER_PERSON,
  queueSpeech,
  RATE_RANGE,
  readMedia,
  VOICE_PATTERN,
  type FileStore,
  type MediaStore,
  type SpeechQueueLimits,
} from '@inntak/media';
import { callerOf } from './auth.js';
import { sendMediaFile } from './media-file.js';
import type { RouteRegistry } from './route-registry.js';
import { Id } from './schemas.js';

export interface MediaDeps {
  media: MediaStore;
  files: FileStore;
  logger: Logger;
  /** Absent: the defaults (docs/media.md). */
  speech?: SpeechQueueLimits;
}

const TAGS = ['media'];
/** A TTS job that failed three times will fail a fourth time too (bad text, engine error). */
const TTS_MAX_ATTEMPTS = 3;

/** GET /media/{id} and POST /intentions/generate_tts (docs/media.md). */
export function installMedia(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: MediaDeps): void {
  const limits = deps.speech ?? { ...DEFAULT_SPEECH_LIMITS, jobsPerPerson: DEFAULT_TTS_JOBS_PER_PERSON };
  registry.describe({
    method: 'get',
    path: '/media/{id}',
    summary: 'The file of a media node, to callers who may read the node',
    description:
      'Streams the file with its Content-Type and an ETag (304 on If-None-Match); Range requests (one range) answer 206, an unsatisfiable range 416. ' +
      'A caller who may not read the media node gets 404. Reading moves metadata.last_accessed_at, at most once a minute.',
    tags: TAGS,
    auth: 'jwt',
    params: z.object({ id: Id }),
    response: { status: 200, schema: z.string().describe('the file bytes'), description: 'The file (206 for a range)' },
    errors: [401, 404, 416],
  });
  app.get('/media/:id', auth, async (req, res) => {
    const caller = callerOf(res);
    const id = req.params.id as string;
    if (!isUuid(id)) throw new AppError('not_found', { detail: 'id' });
    const media = await readMedia(deps.media, caller, id);
    await sendMediaFile(req, res, { id: media.id, mime: media.metadata.mime }, { files: deps.files, logger: deps.logger, touch: (m) => deps.media.touchMediaAccess(m) }, 'private, no-cache');
  });

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/generate_tts',
      summary: "Queue a tts_generate job reading a node's title and content aloud",
      description:
        'Needs member on the node (403 with read access only, 404 without). The job makes a media node (audio/wav) owned by the node through a has_media edge; ' +
        'clients see it on /ws. voice: an eSpeak NG voice (default nb); rate: words per minute (default 175). ' +
        'Refused in advance: a text longer than TTS_MAX_TEXT_CHARS or audio estimated longer than TTS_MAX_AUDIO_SECONDS (422), ' +
        'more than TTS_JOBS_PER_PERSON of the caller\'s jobs queued or running (429), ' +
        "a collection whose media would pass MEDIA_BYTES_PER_COLLECTION (409).",
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({
        node_id: Id,
        voice: z.string().regex(VOICE_PATTERN, 'forventet et eSpeak NG-stemmenavn, f.eks. nb').optional(),
        rate: z.number().int().min(RATE_RANGE.min).max(RATE_RANGE.max).optional(),
      }),
      response: { status: 202, schema: z.object({ job_id: z.number().int() }) },
      errors: [400, 401, 403, 404, 409, 422, 429],
    },
    auth,
    async ({ body, caller }) => ({ job_id: await queueSpeech(deps.media, caller, body, limits, { maxAttempts: TTS_MAX_ATTEMPTS }) }),
  );
}
