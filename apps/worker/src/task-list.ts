import type { TaskList } from 'graphile-worker';
import type { Db } from '@inntak/postgres';
import { governed, type GovernedDeps, type JobBody } from './governed-task.js';
import type { DiskMonitorDeps } from './disk-monitor.js';
import { accessRepair } from './tasks/access-repair.js';
import { orchestrate } from './tasks/orchestrate.js';
import { ttsGenerate } from './tasks/tts-generate.js';
import { diskMonitor } from './tasks/disk-monitor.js';
import { abEvaluate } from './tasks/ab-evaluate.js';

export interface OrchestrationAllowLists {
  httpAllow: readonly string[];
  cliAllow: readonly string[];
}

/** The governed job types, one task file each; bodies stay thin. */
export function jobBodies(db: Db, allow: OrchestrationAllowLists = { httpAllow: [], cliAllow: [] }): Record<string, JobBody<never>> {
  return {
    access_repair: accessRepair(db),
    orchestrate: orchestrate({ db, ...allow }),
    tts_generate: ttsGenerate(),
  } as Record<string, JobBody<never>>;
}

export function createTaskList(bodies: Record<string, JobBody<never>>, governedDeps: GovernedDeps, diskDeps: DiskMonitorDeps): TaskList {
  const list: TaskList = { disk_monitor: diskMonitor(diskDeps), ab_evaluate: abEvaluate(governedDeps) };
  for (const [type, body] of Object.entries(bodies)) list[type] = governed(type, body, governedDeps);
  return list;
}
