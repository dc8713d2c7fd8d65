import { PermanentJobError, type JobPayloads } from '@inntak/jobs';
import { MixdownError, renderMix, type FileStore, type MixdownCatalog } from '@inntak/media';
import type { JobBody } from '../governed-task.js';

export interface RenderMixDeps {
  mixdownCatalog: MixdownCatalog;
  files: FileStore;
  /** MEDIA_BYTES_PER_COLLECTION; absent: no limit. */
  collectionMediaBytes?: number;
}

/**
 * Mixes a room's channels into a new audio media node of the room (docs/media.md, "Mixdown").
 * A mix that cannot be made (no room, nothing unmuted, a source that is not PCM WAV, the
 * collection full, its asker no longer a member of the room or no longer able to read a source)
 * fails at once with the reason in last_error.
 */
export function renderMixTask(deps: RenderMixDeps): JobBody<JobPayloads['render_mix']> {
  return async (payload, { signal, logger, jobId }) => {
    try {
      const result = await renderMix(
        { catalog: deps.mixdownCatalog, files: deps.files, ...(deps.collectionMediaBytes !== undefined ? { collectionMediaBytes: deps.collectionMediaBytes } : {}) },
        { room_id: payload.room_id, ...(payload.target_lufs !== undefined ? { target_lufs: payload.target_lufs } : {}), ...(payload.requested_by !== undefined ? { requested_by: payload.requested_by } : {}), jobId },
        signal,
      );
      logger.info('mix rendered', { job_id: jobId, room_id: payload.room_id, ...result });
    } catch (error) {
      if (error instanceof MixdownError) throw new PermanentJobError(error.message);
      throw error;
    }
  };
}
