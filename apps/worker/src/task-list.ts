import type { TaskList } from 'graphile-worker';
import type { FileStore, SpeechLimits, SpeechSynthesizer } from '@inntak/media';
import type { Db } from '@inntak/postgres';
import { DEFAULT_BUDGET } from '@inntak/orchestration';
import { governed, type GovernedDeps, type JobBody } from './governed-task.js';
import type { DiskMonitorDeps } from './disk-monitor.js';
import { accessRepair } from './tasks/access-repair.js';
import { orchestrate } from './tasks/orchestrate.js';
import { ttsGenerate } from './tasks/tts-generate.js';
import { diskMonitor } from './tasks/disk-monitor.js';
import { abEvaluate } from './tasks/ab-evaluate.js';
import { prune } from './tasks/prune.js';
import { pruneDeliveriesTask } from './tasks/prune-deliveries.js';

/** The media adapters: the file store under STORAGE_DIR and the speech engine. */
export interface MediaDeps {
  files: FileStore;
  synthesizer: SpeechSynthesizer;
  /** What one TTS job may cost (WorkerConfig.speech); absent: the defaults. */
  speechLimits?: SpeechLimits;
}

export interface OrchestrationAllowLists {
  httpAllow: readonly string[];
  cliAllow: readonly string[];
  /** ORCHESTRATION_BUDGET; absent: DEFAULT_BUDGET. */
  budget?: number;
  /** TTS_JOBS_PER_PERSON, for an orchestration's generate_tts; absent: the default. */
  ttsJobsPerPerson?: number;
}

/** The governed job types, one task file each; bodies stay thin. */
export function jobBodies(db: Db, media: MediaDeps, allow: OrchestrationAllowLists = { httpAllow: [], cliAllow: [] }): Record<string, JobBody<never>> {
  return {
    access_repair: accessRepair(db),
    orchestrate: orchestrate({ db, ...allow, budget: allow.budget ?? DEFAULT_BUDGET }),
    tts_generate: ttsGenerate({ db, ...media }),
  } as Record<string, JobBody<never>>;
}

/** Tasks outside the governor: a full disk must be noticed and relieved while heavy jobs run. */
export const HOUSEKEEPING_TASKS = ['disk_monitor', 'ab_evaluate', 'prune', 'prune_deliveries'] as const;

export function createTaskList(bodies: Record<string, JobBody<never>>, governedDeps: GovernedDeps, diskDeps: DiskMonitorDeps, media: MediaDeps): TaskList {
  const list: TaskList = { disk_monitor: diskMonitor(diskDeps), ab_evaluate: abEvaluate(governedDeps), prune: prune({ ...diskDeps, files: media.files }),
    prune_deliveries: pruneDeliveriesTask(diskDeps),
  };
  for (const [type, body] of Object.entries(bodies)) list[type] = governed(type, body, governedDeps);
  return list;
}
