import type { Task } from 'graphile-worker';
import { checkDisk, type DiskMonitorDeps } from '../disk-monitor.js';

/**
 * The crontab's disk check. Housekeeping, so outside the governor: a full disk must be noticed
 * even while heavy jobs hold every slot.
 */
export function diskMonitor(deps: DiskMonitorDeps): Task {
  return async () => {
    await checkDisk(deps);
  };
}
