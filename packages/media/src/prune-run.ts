import { usedPercent, type DiskProbe } from '@inntak/jobs';
import { decidePruning, type PruneCandidate, type PruneDecision } from './pruning.js';
import { idsOfFiles, planSweep, type SweepAction } from './sweep.js';
import type { FileStore, PruneReport } from './ports.js';

export type { PruneReport };
import { fileKeyOf, type MediaMetadata } from './types.js';

/** What a pruning run needs of the database (packages/postgres/src/media). */
export interface PruneCatalog {
  /** A page of media rows in id order after `afterId`. */
  candidates(afterId: string | null, limit: number): Promise<PruneCandidate[]>;
  /** Deletes a media row; its metadata, or undefined when it was already gone. */
  deleteRow(id: string): Promise<MediaMetadata | undefined>;
  /** The file keys of the media rows among these ids. */
  rowKeys(ids: readonly string[]): Promise<Set<string>>;
  record(report: PruneReport): Promise<void>;
}

export interface PruneDeps {
  catalog: PruneCatalog;
  files: FileStore;
  probe: DiskProbe;
  storageDir: string;
  now?: () => Date;
}

const PAGE = 500;

/**
 * One pruning run: measure the disk, decide page by page, delete each chosen row and then its
 * file, sweep orphans, record the run. A dry run decides and reports but changes nothing (and
 * reports the sweep it would do).
 */
export async function runPrune(deps: PruneDeps, options: { dryRun: boolean; trigger: string }): Promise<PruneReport> {
  const now = deps.now ?? (() => new Date());
  const started = now();
  const diskPercent = usedPercent(await deps.probe.measure(deps.storageDir));
  const deleted: PruneDecision[] = [];
  let afterId: string | null = null;
  for (;;) {
    const page = await deps.catalog.candidates(afterId, PAGE);
    if (page.length === 0) break;
    afterId = page[page.length - 1]!.id;
    for (const decision of decidePruning(page, diskPercent, started)) {
      if (options.dryRun) {
        deleted.push(decision);
        continue;
      }
      // Row first, then file: a crash in between leaves an orphan file for the sweep, never a
      // row without its file.
      const metadata = await deps.catalog.deleteRow(decision.id);
      if (!metadata) continue;
      await deps.files.remove(fileKeyOf(decision.id, metadata.mime));
      deleted.push(decision);
    }
    if (page.length < PAGE) break;
  }
  const swept = await sweepOrphans(deps, { dryRun: options.dryRun, now: started });
  const report: PruneReport = {
    mode: options.dryRun ? 'dry_run' : 'run',
    trigger: options.trigger,
    started_at: started.toISOString(),
    finished_at: now().toISOString(),
    disk_percent: diskPercent,
    deleted,
    freed_bytes: deleted.reduce((sum, d) => sum + d.bytes, 0),
    swept: swept.map((action) => ({ kind: action.kind, key: action.key })),
  };
  await deps.catalog.record(report);
  return report;
}

/** Settles what a crash left between a database write and its file step (sweep.ts). */
export async function sweepOrphans(
  deps: Pick<PruneDeps, 'catalog' | 'files'>,
  options: { dryRun: boolean; now: Date; graceMs?: number },
): Promise<SweepAction[]> {
  const files = await deps.files.list();
  const rowKeys = await deps.catalog.rowKeys(idsOfFiles(files));
  const actions = planSweep(files, rowKeys, options.now, options.graceMs);
  if (options.dryRun) return actions;
  for (const action of actions) {
    if (action.kind === 'place') await deps.files.commit(action.tempName, action.key);
    else if (action.kind === 'discard') await deps.files.discard(action.tempName);
    else await deps.files.remove(action.key);
  }
  return actions;
}
