import type { Task } from 'graphile-worker';
import { DISK_THRESHOLDS, parseJobPayload, PermanentJobError, usedPercent, type DiskProbe } from '@inntak/jobs';
import { runPrune, type FileStore, type PruneCatalog } from '@inntak/media';
import type { Logger } from '@inntak/core';

export interface PruneDeps {
  pruneCatalog: PruneCatalog;
  probe: DiskProbe;
  files: FileStore;
  storageDir: string;
  logger: Logger;
}

/**
 * The crontab's pruning run (docs/media.md): every 6 hours (`trigger: schedule`), and every 15
 * minutes a `disk_high` entry that runs only while the disk is at 85 % or more. Housekeeping,
 * outside the governor like the disk check: a full disk must be relieved even while heavy jobs
 * hold every slot.
 */
export function prune(deps: PruneDeps): Task {
  return async (rawPayload) => {
    let payload;
    try {
      payload = parseJobPayload('prune', rawPayload);
    } catch (error) {
      // Housekeeping has no history row: a bad payload is logged and dropped, never retried.
      if (!(error instanceof PermanentJobError)) throw error;
      deps.logger.error('pruning job dropped', { tag: 'prune', error: error.message });
      return;
    }
    const trigger = payload.trigger ?? 'schedule';
    if (trigger === 'disk_high') {
      const percent = usedPercent(await deps.probe.measure(deps.storageDir));
      if (percent < DISK_THRESHOLDS.warning) return;
    }
    const report = await runPrune({ catalog: deps.pruneCatalog, files: deps.files, probe: deps.probe, storageDir: deps.storageDir }, { dryRun: false, trigger });
    deps.logger.info('pruning run', {
      tag: 'prune',
      trigger,
      disk_percent: report.disk_percent,
      deleted: report.deleted,
      freed_bytes: report.freed_bytes,
      swept: report.swept,
    });
  };
}
