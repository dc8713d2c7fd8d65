import type { TaskList } from 'graphile-worker';
import type { FileStore, MixdownCatalog, PruneCatalog, SpeechCatalog, SpeechLimits, SpeechRecognizer, SpeechSynthesizer, TranscriptionCatalog } from '@inntak/media';
import type { AbTestStore } from '@inntak/ab-testing';
import type { JobPayload } from '@inntak/jobs';
import { governed, type GovernedDeps, type JobBody } from './governed-task.js';
import type { DiskMonitorDeps } from './disk-monitor.js';
import { accessRepair } from './tasks/access-repair.js';
import { orchestrate, type OrchestrateDeps } from './tasks/orchestrate.js';
import { ttsGenerate } from './tasks/tts-generate.js';
import { renderMixTask } from './tasks/render-mix.js';
import { speechTranscription } from './tasks/speech-transcription.js';
import { diskMonitor } from './tasks/disk-monitor.js';
import { abEvaluate } from './tasks/ab-evaluate.js';
import { prune } from './tasks/prune.js';
import { pruneDeliveriesTask } from './tasks/prune-deliveries.js';
import { orchestrationScheduleTask } from './tasks/orchestration-schedule.js';

/** The media adapters: the file store under STORAGE_DIR and the speech engine. */
export interface MediaAdapters {
  files: FileStore;
  synthesizer: SpeechSynthesizer;
  /** What one TTS job may cost (WorkerConfig.speech); absent: the defaults. */
  speechLimits?: SpeechLimits;
  /** The speech-to-text engine (TRANSCRIPTION_MODEL_DIR); absent: speech_transcription fails saying so. */
  recognizer?: SpeechRecognizer;
}

/** The media tasks' dependencies: the adapters and media's database ports (built in worker.ts). */
export interface MediaDeps extends MediaAdapters {
  speechCatalog: SpeechCatalog;
  pruneCatalog: PruneCatalog;
  mixdownCatalog: MixdownCatalog;
  transcriptionCatalog: TranscriptionCatalog;
}

/** The graph's repair access_repair runs (packages/postgres propagateBelongsTo). */
export interface GraphRepair {
  repairAccess(edgeId: string): Promise<number>;
}

/** The housekeeping tasks' database ports (built in worker.ts). */
export interface HousekeepingDeps {
  abTests: AbTestStore;
  pruneDeliveries(): Promise<{ expired: number; overLimit: number; deliveryIds: number; refusals: number }>;
  /** Queues the scheduled orchestrations that are due (packages/orchestration planScheduledRuns). */
  planScheduledRuns(): Promise<number>;
}

/** The governed job types, one task file each; bodies stay thin. */
export function jobBodies(graph: GraphRepair, media: MediaDeps, orchestration: OrchestrateDeps): Record<string, JobBody<never>> {
  return {
    access_repair: accessRepair((edgeId) => graph.repairAccess(edgeId)),
    orchestrate: orchestrate(orchestration),
    tts_generate: ttsGenerate(media),
    speech_transcription: speechTranscription(media),
    render_mix: renderMixTask({ ...media, collectionMediaBytes: media.speechLimits?.collectionMediaBytes }),
  } as Record<string, JobBody<never>>;
}

/** Tasks outside the governor: a full disk must be noticed and relieved while heavy jobs run. */
export const HOUSEKEEPING_TASKS = ['disk_monitor', 'ab_evaluate', 'prune', 'prune_deliveries', 'orchestration_schedule'] as const;

export function createTaskList(
  bodies: Record<string, JobBody<never>>,
  governedDeps: GovernedDeps,
  diskDeps: DiskMonitorDeps,
  media: MediaDeps,
  housekeeping: HousekeepingDeps,
): TaskList {
  const list: TaskList = {
    disk_monitor: diskMonitor(diskDeps),
    ab_evaluate: abEvaluate({ abTests: housekeeping.abTests, logger: diskDeps.logger }),
    prune: prune({ ...diskDeps, files: media.files, pruneCatalog: media.pruneCatalog }),
    prune_deliveries: pruneDeliveriesTask({ pruneDeliveries: () => housekeeping.pruneDeliveries(), logger: diskDeps.logger }),
    orchestration_schedule: orchestrationScheduleTask({ planScheduledRuns: () => housekeeping.planScheduledRuns(), logger: diskDeps.logger }),
  };
  for (const [type, body] of Object.entries(bodies)) list[type] = governed(type, body as JobBody<JobPayload<string>>, governedDeps);
  return list;
}
