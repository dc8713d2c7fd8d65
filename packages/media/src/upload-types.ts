import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { parseBuffer } from 'music-metadata';
import type { MediaType } from './types.js';

/**
 * What an upload may be, decided from its bytes (file-type), never from the Content-Type the
 * client sent: the mime file-type reports → the mime we store and the kind whose size limit
 * applies. Anything else (Ogg Vorbis, M4A, GIF, a PDF, text) is refused with 415.
 */
const ACCEPTED: Record<string, { mime: string; media_type: Exclude<MediaType, 'text'> }> = {
  'audio/wav': { mime: 'audio/wav', media_type: 'audio' },
  'audio/mpeg': { mime: 'audio/mpeg', media_type: 'audio' },
  'audio/ogg; codecs=opus': { mime: 'audio/ogg', media_type: 'audio' },
  'audio/opus': { mime: 'audio/ogg', media_type: 'audio' },
  'audio/x-flac': { mime: 'audio/flac', media_type: 'audio' },
  'audio/flac': { mime: 'audio/flac', media_type: 'audio' },
  'image/png': { mime: 'image/png', media_type: 'image' },
  'image/jpeg': { mime: 'image/jpeg', media_type: 'image' },
  'image/webp': { mime: 'image/webp', media_type: 'image' },
  'video/mp4': { mime: 'video/mp4', media_type: 'video' },
  'video/webm': { mime: 'video/webm', media_type: 'video' },
};

export const UPLOAD_MIMES = [...new Set(Object.values(ACCEPTED).map((a) => a.mime))];

/** Bytes file-type needs to decide (its own constant): the API sniffs once this much has arrived. */
export const SNIFF_BYTES = 4100;

export interface SniffedType {
  mime: string;
  media_type: Exclude<MediaType, 'text'>;
}

/** The accepted type of these bytes, or undefined. */
export async function sniffUploadType(head: Uint8Array): Promise<SniffedType | undefined> {
  const found = await fileTypeFromBuffer(head);
  return found ? ACCEPTED[found.mime] : undefined;
}

/** The file could not be read as the type its first bytes claim (a truncated or forged file). */
export class UnreadableMediaError extends Error {
  constructor(mime: string, reason: string) {
    super(`not a readable ${mime} file: ${reason}`);
    this.name = 'UnreadableMediaError';
  }
}

/**
 * The metadata a type gets: width and height of an image (image-size), the duration of audio and
 * video (music-metadata reads WAV, MP3, Ogg/Opus, FLAC, and the MP4 and Matroska/WebM containers).
 */
export async function probeUpload(bytes: Uint8Array, type: SniffedType): Promise<{ width?: number; height?: number; duration_s?: number }> {
  try {
    if (type.media_type === 'image') {
      const { width, height } = imageSize(bytes);
      if (!width || !height) throw new Error('no dimensions');
      return { width, height };
    }
    if (type.mime === 'video/mp4') {
      const seconds = mp4Duration(bytes);
      if (seconds === undefined) throw new Error('no moov/mvhd box');
      return { duration_s: Math.round(seconds * 1000) / 1000 };
    }
    const { format } = await parseBuffer(bytes, { mimeType: type.mime, size: bytes.byteLength }, { duration: true, skipCovers: true });
    if (format.duration === undefined || !Number.isFinite(format.duration)) {
      // A WebM recorded live may carry no duration; the file is fine, its length unknown.
      if (type.media_type === 'video') return {};
      throw new Error('no duration');
    }
    return { duration_s: Math.round(format.duration * 1000) / 1000 };
  } catch (error) {
    throw new UnreadableMediaError(type.mime, error instanceof Error ? error.message : String(error));
  }
}

/**
 * An MP4's length from its movie header (ISO/IEC 14496-12: moov → mvhd, duration / timescale).
 * music-metadata reads the audio tracks of MP4s only, so a video without sound has no duration
 * there; the header is a few fixed offsets.
 */
export function mp4Duration(bytes: Uint8Array): number | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = (at: number) => String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
  const find = (start: number, end: number, wanted: string): number | undefined => {
    for (let at = start; at + 8 <= end; ) {
      let size = view.getUint32(at);
      if (size === 1 && at + 16 <= end) size = Number(view.getBigUint64(at + 8));
      else if (size === 0) size = end - at;
      if (size < 8) return undefined;
      if (type(at) === wanted) return at;
      at += size;
    }
    return undefined;
  };
  const moov = find(0, bytes.length, 'moov');
  if (moov === undefined) return undefined;
  const mvhd = find(moov + 8, Math.min(bytes.length, moov + view.getUint32(moov)), 'mvhd');
  if (mvhd === undefined || mvhd + 40 > bytes.length) return undefined;
  const version = bytes[mvhd + 8];
  const timescale = version === 1 ? view.getUint32(mvhd + 28) : view.getUint32(mvhd + 20);
  const duration = version === 1 ? Number(view.getBigUint64(mvhd + 32)) : view.getUint32(mvhd + 24);
  return timescale > 0 ? duration / timescale : undefined;
}
