import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { queueTranscription, readTranscription, type MediaStore } from '@inntak/media';
import type { RouteRegistry } from '../route-registry.js';
import { Id } from '../schemas.js';

const TranscriptionSchema = z.object({
  media_id: Id,
  transcribed: z.boolean().nullable().describe('false while a transcription is owed; null for media that owes none'),
  segments: z.array(z.object({ start_s: z.number(), end_s: z.number(), text: z.string() })),
});

/** A media node's transcription, and asking for one (docs/media.md, "Transcription"). */
export function installMediaTranscription(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: { media: MediaStore }): void {
  registry.route(
    app,
    {
      method: 'get',
      path: '/media/{id}/transcription',
      summary: 'The transcription segments of an audio media node, to callers who may read the node',
      tags: ['media'],
      auth: 'jwt',
      params: z.object({ id: Id }),
      response: { status: 200, schema: TranscriptionSchema },
      errors: [400, 401, 404],
    },
    auth,
    ({ params, caller }) => readTranscription(deps.media, caller, params.id),
  );
  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/transcribe',
      summary: 'Queue a speech_transcription job for an audio media node (member on it, through its owner)',
      tags: ['media'],
      auth: 'jwt',
      body: z.strictObject({ media_id: Id }),
      response: { status: 202, schema: z.object({ job_id: z.number().int() }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ body, caller }) => ({ job_id: await queueTranscription(deps.media, caller, body.media_id) }),
  );
}
