import { PermanentJobError, type JobPayloads } from '@inntak/jobs';
import {
  DEFAULT_RATE,
  DEFAULT_VOICE,
  generateSpeech,
  MediaOwnerGoneError,
  NothingToSayError,
  RATE_RANGE,
  SpeechLimitError,
  VOICE_PATTERN,
  type FileStore,
  type SpeechCatalog,
  type SpeechLimits,
  type SpeechSynthesizer,
} from '@inntak/media';
import type { JobBody } from '../governed-task.js';

export interface TtsDeps {
  speechCatalog: SpeechCatalog;
  files: FileStore;
  synthesizer: SpeechSynthesizer;
  speechLimits?: SpeechLimits;
}

/**
 * Reads a node aloud into a media node (docs/media.md). The payload `{ node_id, voice?, rate? }`
 * is shared with the orchestration action generate_tts; a payload no retry can fix fails at once,
 * and so does a job past a limit (TTS_MAX_TEXT_CHARS, TTS_MAX_AUDIO_SECONDS,
 * MEDIA_BYTES_PER_COLLECTION), with the limit named in its last_error.
 */
export function ttsGenerate(deps: TtsDeps): JobBody<JobPayloads['tts_generate']> {
  const catalog = deps.speechCatalog;
  return async (payload, { signal, logger, jobId }) => {
    const voice = payload.voice ?? DEFAULT_VOICE;
    const rate = payload.rate ?? DEFAULT_RATE;
    if (!VOICE_PATTERN.test(voice)) throw new PermanentJobError(`unknown voice "${voice}"`);
    if (!Number.isInteger(rate) || rate < RATE_RANGE.min || rate > RATE_RANGE.max) throw new PermanentJobError(`rate must be ${RATE_RANGE.min}–${RATE_RANGE.max} words per minute`);
    try {
      // A job an orchestration's generate_tts queued carries the run's cascade (checked by the
      // payload schema): the media it makes is an event of that cascade, not a new root.
      const { cascade } = payload;
      const result = await generateSpeech(
        { catalog, files: deps.files, synthesizer: deps.synthesizer, limits: deps.speechLimits },
        { node_id: payload.node_id, voice, rate, jobId, ...(cascade ? { cascade } : {}) },
        signal,
      );
      logger.info('speech generated', { job_id: jobId, node_id: payload.node_id, ...result });
    } catch (error) {
      if (error instanceof NothingToSayError || error instanceof MediaOwnerGoneError || error instanceof SpeechLimitError) throw new PermanentJobError(error.message);
      throw error;
    }
  };
}
