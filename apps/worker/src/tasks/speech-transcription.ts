import { PermanentJobError, type JobPayloads } from '@inntak/jobs';
import { transcribeMedia, TranscriptionError, type FileStore, type SpeechRecognizer, type TranscriptionCatalog } from '@inntak/media';
import type { JobBody } from '../governed-task.js';

export interface SpeechTranscriptionDeps {
  transcriptionCatalog: TranscriptionCatalog;
  files: FileStore;
  recognizer?: SpeechRecognizer;
}

/**
 * Turns an audio media node into transcription segments (docs/media.md, "Transcription"). No
 * recognizer configured, no such node, not audio, a format it cannot read: the job fails at once
 * with the reason, and the node keeps `transcribed: false` (and its longer lifetime).
 */
export function speechTranscription(deps: SpeechTranscriptionDeps): JobBody<JobPayloads['speech_transcription']> {
  return async (payload, { signal, logger, jobId }) => {
    const recognizer = deps.recognizer;
    if (!recognizer) throw new PermanentJobError('no speech recognizer: TRANSCRIPTION_MODEL_DIR is not set');
    try {
      const result = await transcribeMedia({ catalog: deps.transcriptionCatalog, files: deps.files, recognizer }, payload.media_id, signal);
      logger.info('speech transcribed', { job_id: jobId, media_id: payload.media_id, engine: recognizer.name, ...result });
    } catch (error) {
      if (error instanceof TranscriptionError) throw new PermanentJobError(error.message);
      throw error;
    }
  };
}
