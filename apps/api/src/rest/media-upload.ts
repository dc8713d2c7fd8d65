import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Express, Request, RequestHandler } from 'express';
import { z } from 'zod';
import { AppError, isUuid } from '@inntak/core';
import {
  checkUploadTarget,
  DEFAULT_UPLOAD_LIMITS,
  requireUploadSize,
  SNIFF_BYTES,
  UPLOAD_MIMES,
  uploadMedia,
  uploadTypeOf,
  type FileStore,
  type MediaStore,
  type SniffedType,
  type UploadLimits,
} from '@inntak/media';
import { callerOf } from '../auth.js';
import { authThen, readsPerCaller } from '../read-limits.js';
import type { RouteRegistry } from '../route-registry.js';
import { Binary, Id, Timestamp } from '../schemas.js';

export interface MediaUploadDeps {
  media: MediaStore;
  files: FileStore;
  /** Absent: DEFAULT_UPLOAD_LIMITS. */
  uploads?: UploadLimits;
}

/**
 * Uploads one person may have in flight at once (per API instance; 429 with Retry-After beyond).
 * Each is held in memory up to its kind's limit (200 MB of video by default) until it is checked:
 * without a cap, one login posting twenty slow uploads at once held 4 GB of the API's memory.
 */
export const UPLOADS_PER_CALLER = 2;

const UploadedSchema = z.object({
  id: Id,
  title: z.string().nullable(),
  metadata: z
    .object({
      media_type: z.enum(['audio', 'image', 'video']),
      mime: z.enum(UPLOAD_MIMES as [string, ...string[]]),
      bytes: z.number().int(),
      sha256: z.string(),
      width: z.number().int().optional(),
      height: z.number().int().optional(),
      duration_s: z.number().optional(),
      transcribed: z.boolean().optional(),
      last_accessed_at: Timestamp,
    })
    .loose(),
  transcription_job_id: z.number().int().nullable().describe('the speech_transcription job queued for audio'),
});

/**
 * What a multipart body may carry besides its file (boundaries, part headers, a title): a
 * Content-Length more than this past a kind's limit cannot hold a file within it.
 */
const MULTIPART_SLACK = 64 * 1024;

/**
 * Reads an upload into memory, deciding as soon as the first bytes are in: an unknown type is
 * refused with 415, and a file past its kind's limit with 413 — at once when `declaredAtLeast`
 * (what the Content-Length says the file is at least) already passes it, else as soon as the
 * bytes do. A refusal leaves the stream undestroyed and unread: destroying a request destroys
 * its socket, and the 413 was never sent (issue 35, finding 10); errors.ts closes it after the
 * answer.
 */
async function readUpload(stream: Readable, limits: UploadLimits, declaredAtLeast: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  const max = Math.max(limits.audio, limits.image, limits.video);
  let type: SniffedType | undefined;
  for await (const chunk of stream.iterator({ destroyOnReturn: false })) {
    chunks.push(chunk as Buffer);
    total += (chunk as Buffer).byteLength;
    if (!type && total >= SNIFF_BYTES) {
      type = await uploadTypeOf(Buffer.concat(chunks));
      requireUploadSize(limits, type, declaredAtLeast);
    }
    if (type) requireUploadSize(limits, type, total);
    else if (total > max) throw new AppError('media_too_large', { detail: `høyst ${max} byte` });
  }
  const bytes = new Uint8Array(Buffer.concat(chunks));
  if (!type) requireUploadSize(limits, await uploadTypeOf(bytes), bytes.byteLength);
  return bytes;
}

/** The file part of a multipart/form-data body (the first file; a `title` field before it is kept). */
function readMultipart(req: Request, limits: UploadLimits, declared: number): Promise<{ bytes: Uint8Array; title?: string }> {
  return new Promise((resolve, reject) => {
    let title: string | undefined;
    let file: Promise<Uint8Array> | undefined;
    const parser = busboy({ headers: req.headers, limits: { files: 1, fields: 4, fieldSize: 1024 } });
    parser.on('field', (name, value) => {
      if (name === 'title') title = value;
    });
    parser.on('file', (_name, stream) => {
      file = readUpload(stream, limits, declared - MULTIPART_SLACK);
      // A refusal mid-file answers at once: busboy would wait for a file stream nobody reads.
      file.catch((err: unknown) => {
        req.unpipe(parser);
        reject(err as Error);
      });
    });
    parser.on('error', () => reject(new AppError('unreadable_body')));
    parser.on('close', () => {
      if (!file) return reject(new AppError('invalid_input', { detail: 'file: mangler en fil' }));
      file.then((bytes) => resolve({ bytes, ...(title !== undefined ? { title } : {}) }), reject);
    });
    req.pipe(parser);
  });
}

/**
 * POST /media (docs/media.md, "Upload"): a file into a collection the caller is a member of, as
 * the raw body with any Content-Type (the bytes decide) or as multipart/form-data (`file`, and
 * `title`). The GET side of /media is media.ts.
 */
export function installMediaUpload(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: MediaUploadDeps): void {
  const limits = deps.uploads ?? DEFAULT_UPLOAD_LIMITS;
  const query = z.object({ collection_id: Id, title: z.string().max(200).optional() });
  registry.describe({
    method: 'post',
    path: '/media',
    summary: 'Upload a file (audio, image or video) into a collection the caller is a member of',
    description:
      'The raw body (any Content-Type: the type is read from the bytes) or multipart/form-data with a `file` part. ' +
      'Audio WAV, MP3, Ogg/Opus, FLAC; images PNG, JPEG, WebP; video MP4, WebM; anything else 415. ' +
      'Past UPLOAD_MAX_{AUDIO,IMAGE,VIDEO}_BYTES 413; a full collection (MEDIA_BYTES_PER_COLLECTION) 409; a file that cannot be read as its type 422. ' +
      'Images get width and height, audio and video duration_s, every file its sha256. Audio arrives with transcribed: false and a speech_transcription job. ' +
      `At most ${UPLOADS_PER_CALLER} uploads of one person at once (429 beyond).`,
    tags: ['media'],
    auth: 'jwt',
    query,
    body: Binary.describe('the file bytes'),
    bodyContentType: 'application/octet-stream',
    bodyAlternatives: { 'multipart/form-data': { schema: z.object({ file: Binary.describe('the file'), title: z.string().optional() }) } },
    response: { status: 201, schema: UploadedSchema },
    errors: [400, 401, 403, 404, 409, 413, 415, 422, 429, 507],
  });
  app.post('/media', authThen(auth, readsPerCaller(UPLOADS_PER_CALLER)), async (req, res) => {
    const caller = callerOf(res);
    const collectionId = req.query.collection_id;
    if (typeof collectionId !== 'string' || !isUuid(collectionId)) throw new AppError('invalid_input', { detail: 'collection_id: forventet en UUID' });
    // Past every kind's limit, refused before a byte of the body; past its own kind's, as soon as
    // the first bytes name the kind (readUpload).
    const declared = Number(req.headers['content-length'] ?? 0) || 0;
    const largest = Math.max(limits.audio, limits.image, limits.video);
    if (declared > largest + MULTIPART_SLACK) throw new AppError('media_too_large', { detail: `høyst ${largest} byte` });
    await checkUploadTarget(deps.media, caller, collectionId);
    const multipart = req.is('multipart/form-data') === 'multipart/form-data';
    const { bytes, title } = multipart ? await readMultipart(req, limits, declared) : { bytes: await readUpload(req, limits, declared), title: undefined };
    const queryTitle = typeof req.query.title === 'string' ? req.query.title : undefined;
    const uploaded = await uploadMedia({ store: deps.media, files: deps.files, limits }, caller, { collection_id: collectionId, bytes, title: title ?? queryTitle ?? null });
    res.status(201).json(uploaded);
  });
}
