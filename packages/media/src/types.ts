/**
 * Glossary
 * - media node: a node of kind `media` describing one file under STORAGE_DIR. Its metadata is
 *   MediaMetadata; the file's name is derived from the node's id and mime type (fileKeyOf), so
 *   no metadata can point a media node at another file.
 * - owner: the node that points at the media node with a `has_media` edge (an article, a
 *   message). The media node inherits the owner's access rows through a system `belongs_to`
 *   edge media → owner, the one propagation rule of docs/access.md.
 * - generated / regenerable: made by the service (text-to-speech) and able to be made again
 *   from its source node, so pruning may drop it early when the disk fills.
 * - published: the owner has a `published_in` edge to a publication; pruning keeps such media.
 */

export const MEDIA_TYPES = ['audio', 'image', 'video', 'text'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

export const MEDIA_NODE_KIND = 'media';
export const HAS_MEDIA_EDGE = 'has_media';
export const PUBLISHED_IN_EDGE = 'published_in';

export interface MediaMetadata {
  media_type: MediaType;
  mime: string;
  bytes: number;
  duration_s?: number;
  generated: boolean;
  regenerable: boolean;
  /** Audio only: false while a transcription is still owed (extends the lifetime). */
  transcribed?: boolean;
  source_node_id?: string;
  /** ISO time; updated at most once a minute per file when it is read. */
  last_accessed_at: string;
  [key: string]: unknown;
}

/** GET /media/{id} moves last_accessed_at at most this often per file. */
export const ACCESS_TOUCH_INTERVAL_MS = 60_000;

const EXTENSIONS: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/flac': 'flac',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'text/plain': 'txt',
};

/** The file's name in the store: the node id and an extension from the mime type. */
export function fileKeyOf(id: string, mime: string): string {
  return `${id}.${EXTENSIONS[mime] ?? 'bin'}`;
}

/** The node id a store key belongs to, or null for a name the store did not make. */
export function idOfFileKey(key: string): string | null {
  const match = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.[a-z0-9]{1,8}$/.exec(key);
  return match ? match[1]! : null;
}

/** One timed piece of a transcription (speech_transcription). */
export interface TranscriptSegment {
  start_s: number;
  end_s: number;
  text: string;
}
