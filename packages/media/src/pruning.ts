import { DISK_THRESHOLDS } from '@inntak/jobs';
import type { MediaType } from './types.js';

/**
 * The pruning decision (spec, Limits; docs/media.md): which media to delete, as a pure function
 * of the media rows, the disk's used percentage and the time.
 *
 * - Lifetimes: audio 30 days, image 30 days, video 14 days, text never; counted from the later
 *   of created_at and last_accessed_at.
 * - Extensions: media whose owner is published (a `published_in` edge) is kept while the edge
 *   exists; audio not yet transcribed lives twice as long.
 * - ≥ 85 %: also generated media that can be regenerated (unless published).
 * - ≥ 90 %: aggressive lifetimes (AGGRESSIVE_LIFETIME_DAYS).
 * - ≥ 95 %: everything not published, except text.
 * Text is never deleted.
 */

const DAY_MS = 86_400_000;

/** Normal lifetimes in days; null: never deleted for age. */
export const LIFETIME_DAYS: Record<MediaType, number | null> = { audio: 30, image: 30, video: 14, text: null };

/** At ≥ 90 % disk use: a quarter of the normal lifetime, rounded down (video: 3 days). */
export const AGGRESSIVE_LIFETIME_DAYS: Record<MediaType, number | null> = { audio: 7, image: 7, video: 3, text: null };

/** Audio owed a transcription lives this many times longer. */
export const UNTRANSCRIBED_FACTOR = 2;

export type PruneReason = 'expired' | 'regenerable' | 'expired_aggressive' | 'emergency';

export interface PruneCandidate {
  id: string;
  media_type: MediaType;
  bytes: number;
  created_at: Date;
  last_accessed_at: Date | null;
  generated: boolean;
  regenerable: boolean;
  transcribed: boolean | null;
  /** The owner node has a `published_in` edge. */
  published: boolean;
}

export interface PruneDecision {
  id: string;
  media_type: MediaType;
  bytes: number;
  reason: PruneReason;
}

export function decidePruning(rows: readonly PruneCandidate[], diskPercent: number, now: Date): PruneDecision[] {
  const decisions: PruneDecision[] = [];
  for (const row of rows) {
    const reason = reasonToDelete(row, diskPercent, now);
    if (reason) decisions.push({ id: row.id, media_type: row.media_type, bytes: row.bytes, reason });
  }
  return decisions;
}

function reasonToDelete(row: PruneCandidate, diskPercent: number, now: Date): PruneReason | null {
  if (row.media_type === 'text' || row.published) return null;
  if (diskPercent >= DISK_THRESHOLDS.emergency) return 'emergency';
  if (expired(row, LIFETIME_DAYS, now)) return 'expired';
  if (diskPercent >= DISK_THRESHOLDS.critical && expired(row, AGGRESSIVE_LIFETIME_DAYS, now)) return 'expired_aggressive';
  if (diskPercent >= DISK_THRESHOLDS.warning && row.generated && row.regenerable) return 'regenerable';
  return null;
}

function expired(row: PruneCandidate, lifetimes: Record<MediaType, number | null>, now: Date): boolean {
  const days = lifetimes[row.media_type];
  if (days === null) return false;
  const factor = row.media_type === 'audio' && row.transcribed === false ? UNTRANSCRIBED_FACTOR : 1;
  const from = Math.max(row.created_at.getTime(), row.last_accessed_at?.getTime() ?? 0);
  return now.getTime() - from > days * factor * DAY_MS;
}
