import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { AppError, type Logger } from '@inntak/core';
import { fileKeyOf, MEDIA_TYPES, UPLOAD_MIMES, type FileStore } from '@inntak/media';
import type { RouteResponse } from './route-registry.js';
import { Binary } from './schemas.js';

/**
 * What sendMediaFile answers, for the route registry: the bytes in the file's own type, one of
 * every kind of media (`audio/*`, `image/*`, …), so the document follows MEDIA_TYPES.
 */
export const MEDIA_FILE_ANSWER = { status: 200, schema: Binary, contentType: MEDIA_TYPES.map((type) => `${type}/*`), description: 'The file (206 for a range)' } satisfies RouteResponse;

export interface MediaFileDeps {
  files: FileStore;
  logger: Logger;
  /** Reading a file counts as access for pruning (metadata.last_accessed_at, at most once a minute). */
  touch(mediaId: string): Promise<unknown>;
}

/**
 * Types a browser only plays or shows (what uploads take; speech and mixes are audio/wav): these
 * open inline, anything else is a download. None of them can run a script, but a media row of
 * another type (a future kind, a hand-made row) must not become a page on this origin.
 */
const INLINE_MIMES: ReadonlySet<string> = new Set(UPLOAD_MIMES);

/**
 * What a browser may do with a media file, on an origin it shares with the console and the
 * published pages (issue 35, finding 8): no sniffing it into another type, no script, nothing
 * loaded, and no page of its own (sandbox) even when opened directly; its name is the store's
 * (the id and an extension), never a title someone typed.
 */
function mediaFileHeaders(res: Response, key: string, mime: string): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Content-Disposition', `${INLINE_MIMES.has(mime) ? 'inline' : 'attachment'}; filename="${key}"`);
}

/**
 * Streams a media node's file, for GET /media/{id} and the published pages' /medier/{id}: one
 * byte range answers 206 (a browser's <audio> and <video> seek with them), an unsatisfiable one
 * 416; a file never changes under its id, so its ETag is the id and size, and a current
 * If-None-Match is 304.
 */
export async function sendMediaFile(req: Request, res: Response, media: { id: string; mime: string }, deps: MediaFileDeps, cacheControl: string): Promise<void> {
  const key = fileKeyOf(media.id, media.mime);
  const size = await deps.files.size(key);
  if (size === null) {
    // A row without its file must not happen (docs/media.md); say so loudly if it does.
    deps.logger.error('media file missing', { media_id: media.id, key });
    throw new AppError('not_found', { detail: 'id' });
  }
  deps.touch(media.id).catch((error: Error) => deps.logger.warn('last_accessed_at not updated', { media_id: media.id, error: error.message }));
  mediaFileHeaders(res, key, media.mime);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('ETag', `"${media.id}-${size}"`);
  res.setHeader('Cache-Control', cacheControl);
  if (!req.headers.range && req.fresh) {
    res.status(304).end();
    return;
  }
  let range: { start: number; end: number } | undefined;
  if (req.headers.range) {
    const ranges = req.range(size, { combine: true });
    if (ranges === -1) {
      res.setHeader('Content-Range', `bytes */${size}`);
      res.status(416).json({ error: 'Ugyldig byteområde' });
      return;
    }
    // A malformed header or several ranges: the whole file (RFC 9110 allows ignoring Range).
    if (ranges !== undefined && ranges !== -2 && ranges.type === 'bytes' && ranges.length === 1) range = ranges[0];
  }
  res.setHeader('Content-Type', media.mime);
  if (range) {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
    res.setHeader('Content-Length', String(range.end - range.start + 1));
  } else {
    res.status(200);
    res.setHeader('Content-Length', String(size));
  }
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  await pipeline(deps.files.read(key, range), res).catch((error: NodeJS.ErrnoException) => {
    // A client that hangs up mid-file is not an error of ours.
    if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE') deps.logger.warn('media stream failed', { media_id: media.id, error: error.message });
  });
}
