import { idOfFileKey } from './types.js';
import type { StoredFile } from './ports.js';

/**
 * The orphan sweep's plan: what to do with files the database does not describe as placed.
 * - a temporary file whose row exists lost its rename in a crash after the commit: put it in
 *   place (never a row without its file);
 * - a temporary file without a row, older than the grace period (a job may still be writing or
 *   committing it): a write that failed or crashed before its commit; remove it;
 * - a placed file without a row: its row was deleted and the crash came before the file went;
 *   remove it.
 */
export type SweepAction =
  | { kind: 'place'; tempName: string; key: string }
  | { kind: 'discard'; tempName: string; key: string }
  | { kind: 'remove'; key: string };

/** A writer commits well within a job's timeout; older temporary files are not in flight. */
export const TEMP_GRACE_MS = 60 * 60_000;

/** `rowKeys`: the file keys of the media rows that exist (for the ids of idsOfFiles). */
export function planSweep(files: readonly StoredFile[], rowKeys: ReadonlySet<string>, now: Date, graceMs = TEMP_GRACE_MS): SweepAction[] {
  const actions: SweepAction[] = [];
  for (const file of files) {
    const known = rowKeys.has(file.key);
    if (file.tempName !== undefined) {
      if (known) actions.push({ kind: 'place', tempName: file.tempName, key: file.key });
      else if (now.getTime() - file.modifiedAt.getTime() >= graceMs) actions.push({ kind: 'discard', tempName: file.tempName, key: file.key });
    } else if (!known) {
      actions.push({ kind: 'remove', key: file.key });
    }
  }
  return actions;
}

/** The ids the sweep must ask the database about. */
export function idsOfFiles(files: readonly StoredFile[]): string[] {
  return [...new Set(files.map((f) => idOfFileKey(f.key)).filter((id): id is string => id !== null))];
}
