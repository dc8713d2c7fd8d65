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
  tts_generate: { node_id: string; voice?: string; rate?: number; /** The person who asked (POST /intentions/generate_tts), counted against TTS_JOBS_PER_PERSON. */ requested_by?: string };
  /** One pruning run (crontab; `trigger` says which entry). Housekeeping, outside the governor. */
  prune: { trigger?: string };
}

export type JobPayload<T extends string> = T extends keyof JobPayloads ? JobPayloads[T] : Record<string, unknown>;

declare global {
  namespace GraphileWorker {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Tasks extends JobPayloads {}
  }
}
