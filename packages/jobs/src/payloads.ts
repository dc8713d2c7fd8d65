/**
 * Every job type's payload, typed once. graphile-worker sees them through declaration merging
 * (`Task<'access_repair'>`); the enqueue function through JobPayload.
 */
export interface JobPayloads {
  /** Re-runs a `belongs_to` edge's access propagation that failed during intake. */
  access_repair: { edge_id: string };
  /** Runs an orchestration's script for one event that matched its trigger (queued by 011.do.orchestration.sql). */
  orchestrate: {
    orchestration_id: string;
    event: { type: 'node.created' | 'edge.created'; id: string; depth: number };
    /** The root event of the cascade, whose budget the run spends (017); absent in jobs queued before it. */
    root?: string;
  };
  /** Reads a node's title and content aloud into a media node (docs/media.md). */
  tts_generate: {
    node_id: string;
    voice?: string;
    rate?: number;
    /** The person who asked (POST /intentions/generate_tts), counted against TTS_JOBS_PER_PERSON. */
    requested_by?: string;
    /** The orchestration run that queued it (the action generate_tts): its media is an event of that cascade. */
    cascade?: OrchestrationCascade;
  };
  /** One pruning run (crontab; `trigger` says which entry). Housekeeping, outside the governor. */
  prune: { trigger?: string };
}

/**
 * Where an orchestration run stands in its cascade (017): the depth of the event it runs for, the
 * root event and that root's budget. A job an action queues carries it, so the writes the job
 * makes are events of the same cascade (depth + 1, the same root's budget), not new root events
 * (the second attack on issue 22: a TTS job without it let an orchestration reading its own media
 * aloud run forever).
 */
export interface OrchestrationCascade {
  depth: number;
  root: string;
  budget: number;
}

export type JobPayload<T extends string> = T extends keyof JobPayloads ? JobPayloads[T] : Record<string, unknown>;

declare global {
  namespace GraphileWorker {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Tasks extends JobPayloads {}
  }
}
