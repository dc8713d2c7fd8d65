import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { AppError, isUuid, type Logger, type SharedKey } from '@inntak/core';
import {
  DEFAULT_SPEECH_LIMITS,
  DEFAULT_TTS_JOBS_PER_PERSON,
  queueSpeech,
  RATE_RANGE,
  readLinkedMedia,
  readMedia,
  VOICE_PATTERN,
  type FileStore,
  type MediaStore,
  type SpeechQueueLimits,
} from '@inntak/media';
import { callerOf } from '../auth.js';
import { MEDIA_FILE_ANSWER, sendMediaFile } from '../media-file.js';
import { MEDIA_LINK_DEFAULT_TTL_SECONDS, MEDIA_LINK_MAX_TTL_SECONDS, mediaLinkSigner } from './media-links.js';
import type { RouteRegistry } from '../route-registry.js';
import { Id } from '../schemas.js';

export interface MediaDeps {
  media: MediaStore;
  files: FileStore;
  logger: Logger;
  /** Absent: the defaults (docs/media.md). */
  speech?: SpeechQueueLimits;
  /** Public base URL, for signed links. */
  baseUrl: string;
  /** MEDIA_URL_SECRET: the signed links' HMAC key; absent: `mediaLinkKey`. */
  mediaUrlSecret?: string;
  /** The links' key shared by every API process (server_secrets `media_link`); absent: a key of this process. */
  mediaLinkKey?: SharedKey;
  /** The clock, in ms (tests move it past a link's expiry). */
  now?: () => number;
}

const TAGS = ['media'];
/** A TTS job that failed three times will fail a fourth time too (bad text, engine error). */
const TTS_MAX_ATTEMPTS = 3;

/** GET /media/{id}, GET /media/{id}/link and POST /intentions/generate_tts (docs/media.md). */
export function installMedia(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: MediaDeps): void {
  const limits = deps.speech ?? { ...DEFAULT_SPEECH_LIMITS, jobsPerPerson: DEFAULT_TTS_JOBS_PER_PERSON };
  const signer = mediaLinkSigner(deps.mediaUrlSecret, deps.mediaLinkKey);
  const nowSeconds = () => Math.floor((deps.now ?? Date.now)() / 1000);
  // A request with a Bearer header is checked as always; one without it may carry a signed link's
  // query instead. A wrong signature is 401 like a wrong token; a genuine but expired link is 403.
  const bearerOrLink: RequestHandler = async (req, res, next) => {
    const { expires, signature } = req.query;
    if (req.headers.authorization !== undefined || (expires === undefined && signature === undefined)) return auth(req, res, next);
    if (typeof expires !== 'string' || typeof signature !== 'string' || !(await signer.verify(req.params.id as string, expires, signature))) throw new AppError('invalid_signature');
    if (Number(expires) <= nowSeconds()) throw new AppError('media_link_expired');
    res.locals.mediaLink = true;
    next();
  };
  registry.describe({
    method: 'get',
    path: '/media/{id}',
    summary: 'The file of a media node, to callers who may read the node',
    description:
      'Streams the file with its Content-Type and an ETag (304 on If-None-Match); Range requests (one range) answer 206, an unsatisfiable range 416. ' +
        "Every answer has X-Content-Type-Options: nosniff, Content-Security-Policy: default-src 'none'; sandbox, and Content-Disposition (inline for audio, images and video, else attachment; the file name is <id>.<ext>). " +
      'A caller who may not read the media node gets 404. Reading moves metadata.last_accessed_at, at most once a minute. ' +
      'Instead of a Bearer header, the query of a signed link from GET /media/{id}/link (expires, signature): a wrong signature is 401, an expired link 403.',
    tags: TAGS,
    auth: 'jwt',
    params: z.object({ id: Id }),
    query: z.object({
      expires: z.string().optional().describe("a signed link's expiry, unix seconds"),
      signature: z.string().optional().describe("a signed link's HMAC-SHA256, base64url"),
    }),
    response: MEDIA_FILE_ANSWER,
    errors: [401, 403, 404, 416],
  });
  app.get('/media/:id', bearerOrLink, async (req, res) => {
    const id = req.params.id as string;
    if (!isUuid(id)) throw new AppError('not_found', { detail: 'id' });
    const media = res.locals.mediaLink === true ? await readLinkedMedia(deps.media, id) : await readMedia(deps.media, callerOf(res), id);
    await sendMediaFile(req, res, { id: media.id, mime: media.metadata.mime }, { files: deps.files, logger: deps.logger, touch: (m) => deps.media.touchMediaAccess(m) }, 'private, no-cache');
  });

  registry.route(
    app,
    {
      method: 'get',
      path: '/media/{id}/link',
      summary: 'A signed, expiring link to a media file, for a browser that cannot send a Bearer header',
      description:
        'To callers who may read the media node (404 otherwise, as for GET /media/{id}). The url is GET /media/{id} with expires (unix seconds) and an HMAC-SHA256 signature ' +
        `over id and expires; anyone holding it may fetch the file until then. ttl_seconds: the link's lifetime, default ${MEDIA_LINK_DEFAULT_TTL_SECONDS}, at most ${MEDIA_LINK_MAX_TTL_SECONDS}.`,
      tags: TAGS,
      auth: 'jwt',
      params: z.object({ id: Id }),
      query: z.object({ ttl_seconds: z.coerce.number().int().min(1).max(MEDIA_LINK_MAX_TTL_SECONDS).default(MEDIA_LINK_DEFAULT_TTL_SECONDS) }),
      response: { status: 200, schema: z.object({ url: z.string(), expires_at: z.string().describe('ISO 8601') }) },
      errors: [400, 401, 404],
    },
    auth,
    async ({ params, query, caller }) => {
      const media = await readMedia(deps.media, caller, params.id);
      const expires = nowSeconds() + query.ttl_seconds;
      return { url: `${deps.baseUrl}/media/${media.id}${await signer.query(media.id, expires)}`, expires_at: new Date(expires * 1000).toISOString() };
    },
  );

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
