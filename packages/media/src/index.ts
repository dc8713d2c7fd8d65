// @inntak/media owns: media metadata and lifetimes, the pruning decision, WAV and speech text,
// mixer rules, and the use cases (speech-queue.ts, mixer-channels.ts, media-reads.ts) over the
// MediaStore port (ports.ts; PostgreSQL: packages/postgres/src/media).
export {
  MEDIA_TYPES,
  MEDIA_NODE_KIND,
  HAS_MEDIA_EDGE,
  PUBLISHED_IN_EDGE,
  ACCESS_TOUCH_INTERVAL_MS,
  fileKeyOf,
  idOfFileKey,
  type MediaType,
  type MediaMetadata,
} from './types.js';
export {
  decidePruning,
  LIFETIME_DAYS,
  AGGRESSIVE_LIFETIME_DAYS,
  UNTRANSCRIBED_FACTOR,
  type PruneCandidate,
  type PruneDecision,
  type PruneReason,
} from './pruning.js';
export { planSweep, idsOfFiles, TEMP_GRACE_MS, type SweepAction } from './sweep.js';
export { parseWav, concatWav, decodeWav, encodeWav, InvalidWavError, type WavInfo, type WavFormat } from './wav.js';
export { speechTextOf, splitForSpeech, SPEECH_PIECE_CHARS, SPEECH_MAX_CHARS } from './speech-text.js';
export {
  DEFAULT_VOICE,
  DEFAULT_RATE,
  RATE_RANGE,
  VOICE_PATTERN,
  type FileStore,
  type StoredFile,
  type SpeechSynthesizer,
  type SpeechOptions,
  type MediaStore,
  type MediaTx,
  type MediaCreateTx,
  type MediaRecord,
  type MixerChannelRow,
  type MixerChannelUpdate,
  type LiveRoomRow,
  type MixerFeed,
} from './ports.js';
export {
  GAIN_RANGE,
  MIXER_ROLES,
  DEFAULT_MIXER_ROLE,
  ROOM_NODE_KIND,
  OFFSET_RANGE_MS,
  MAX_LABEL_CHARS,
  MIXER_REQUIREMENTS,
  mixerDeliveries,
  type MixerChannel,
  type MixerRole,
} from './mixer.js';
export { runPrune, sweepOrphans, type PruneCatalog, type PruneReport, type PruneDeps } from './prune-run.js';
export { generateSpeech, MediaOwnerGoneError, NothingToSayError, type SpeechCatalog, type SpeechRequest } from './generate-speech.js';
export { DEFAULT_SPEECH_LIMITS, DEFAULT_TTS_JOBS_PER_PERSON, speechRefusal, SpeechLimitError, type SpeechLimits } from './speech-limits.js';
export { readMedia, readLinkedMedia, latestPruneRun, readTranscription, queueTranscription } from './media-reads.js';
export { queueSpeech, requireSpeechRoom, type SpeechQueueLimits, type SpeechQueueRequest, type SpeechRoomTx } from './speech-queue.js';
export { createMixerChannel, changeMixerChannel, setLiveSession, requireRoomKind, type NewMixerChannel, type MixerChange, type LiveSession } from './mixer-channels.js';
export { EFFECTS, EFFECT_NAMES, isEffectName, effectSettings, channelEffects, storedEffects, applyEffects, type EffectName, type EffectSettings, type ChannelEffects, type EffectInput } from './mix-effects.js';
export { mixChannels, mixdown, MIX_TARGET_LUFS, MIX_CEILING_DBFS, MIX_MAX_SECONDS, MIX_SAMPLE_RATE, NothingToMixError, type MixInput, type Mixdown } from './mixdown.js';
export { dbToGain, gainToDb, integratedLoudness, peakOf, rmsDb, resample } from './dsp.js';
export { queueMixdown, renderMix, MixdownError, MAX_MIX_CHANNELS, type MixdownCatalog, type MixChannelSource, type MixdownResult } from './render-mix.js';
export { placeMediaFile } from './place-media.js';
export { readWhole } from './read-whole.js';
export { sniffUploadType, probeUpload, UPLOAD_MIMES, SNIFF_BYTES, UnreadableMediaError, type SniffedType } from './upload-types.js';
export { uploadMedia, checkUploadTarget, uploadTypeOf, requireUploadSize, DEFAULT_UPLOAD_LIMITS, COLLECTION_NODE_KIND, type UploadLimits, type UploadResult } from './upload-media.js';
export { transcribeMedia, wordErrorRate, TranscriptionError, MAX_SEGMENTS, MAX_SEGMENT_CHARS, MAX_TRANSCRIPTION_SECONDS, type SpeechRecognizer, type TranscriptSegment, type TranscriptionCatalog } from './transcription.js';
export { decodeAudio, UndecodableAudioError } from './decode-audio.js';
export { AUDIO_BOUNDS, AudioOutOfBoundsError } from './audio-bounds.js';
