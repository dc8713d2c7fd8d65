import { cpus, freemem, loadavg, totalmem } from 'node:os';
import type { Logger } from '@inntak/core';
import { classifyDisk, usedPercent, type DiskLevel, type DiskProbe, type ResourceLog, type WorkerProcess } from '@inntak/jobs';

export interface DiskMonitorDeps {
  resources: ResourceLog;
  probe: DiskProbe;
  logger: Logger;
  storageDir: string;
  worker: WorkerProcess;
}

/** One disk check: measure, classify, log at warning and above, record disk and resource usage. */
export async function checkDisk(deps: DiskMonitorDeps): Promise<{ usedPercent: number; level: DiskLevel }> {
  const usage = await deps.probe.measure(deps.storageDir);
  const percent = usedPercent(usage);
  const level = classifyDisk(percent);
  await deps.resources.recordDiskStatus({ path: deps.storageDir, totalBytes: usage.totalBytes, freeBytes: usage.freeBytes, usedPercent: percent, level });
  await deps.resources.recordResourceUsage({
    workerProcess: deps.worker.processId,
    loadAverage1m: Math.round(loadavg()[0]! * 100) / 100,
    cpuCount: cpus().length,
    memoryTotalBytes: totalmem(),
    memoryFreeBytes: freemem(),
    processRssBytes: process.memoryUsage.rss(),
  });
  const meta = { tag: 'disk_status', level_name: level, used_percent: percent, path: deps.storageDir, free_bytes: usage.freeBytes };
  if (level === 'warning') deps.logger.warn('disk use above 85 %', meta);
  else if (level === 'critical') deps.logger.error('disk use above 90 % (critical)', meta);
  else if (level === 'emergency') deps.logger.error('disk use above 95 % (emergency)', meta);
  return { usedPercent: percent, level };
}
