import { PermanentJobError, type JobPayloads, type OrchestrationCascade } from '@inntak/jobs';
import { DEFAULT_RATE, DEFAULT_VOICE, generateSpeech, NothingToSayError, RATE_RANGE, SpeechLimitError, VOICE_PATTERN, type FileStore, type SpeechLimits, type SpeechSynthesizer } from '@inntak/media';
import { type Db } from '@inntak/postgres';
import { MediaOwnerGoneError, postgresSpeechCatalog } from '@inntak/postgres/media';
import type { JobBody } from '../governed-task.js';

export interface TtsDeps {
  db: Db;
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
  const catalog = postgresSpeechCatalog(deps.db);
  return async (payload, { signal, logger, jobId }) => {
    const voice = payload.voice ?? DEFAULT_VOICE;
    const rate = payload.rate ?? DEFAULT_RATE;
    if (typeof payload.node_id !== 'string' || !/^[0-9a-f-]{36}$/i.test(payload.node_id)) throw new PermanentJobError('node_id is not a node id');
    if (!VOICE_PATTERN.test(voice)) throw new PermanentJobError(`unknown voice "${voice}"`);
    if (!Number.isInteger(rate) || rate < RATE_RANGE.min || rate > RATE_RANGE.max) throw new PermanentJobError(`rate must be ${RATE_RANGE.min}–${RATE_RANGE.max} words per minute`);
    const { cascade } = payload;
    if (cascade !== undefined && !validCascade(cascade)) throw new PermanentJobError('cascade is not {depth, root, budget}');
    try {
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

/** The cascade an orchestration's generate_tts put in the payload (runGraphAction). */
function validCascade(cascade: OrchestrationCascade): boolean {
  return (
    typeof cascade === 'object' &&
    cascade !== null &&
    Number.isInteger(cascade.depth) &&
    cascade.depth >= 0 &&
    Number.isInteger(cascade.budget) &&
    cascade.budget >= 1 &&
    typeof cascade.root === 'string' &&
    /^[0-9a-f-]{36}$/i.test(cascade.root)
  );
}
