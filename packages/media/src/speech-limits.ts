/**
 * What one text-to-speech job may cost (issue 22, docs/media.md): a text of at most
 * `maxTextChars`, at most `maxAudioSeconds` of audio (estimated before synthesis from the text
 * and the rate, counted again while it is made), and no job once the node's collection holds
 * `collectionMediaBytes` of media. The API refuses what it can see in advance; the job fails on
 * what only synthesis shows.
 */
export interface SpeechLimits {
  maxTextChars: number;
  maxAudioSeconds: number;
  collectionMediaBytes: number;
}

export const DEFAULT_SPEECH_LIMITS: SpeechLimits = {
  maxTextChars: 20_000,
  maxAudioSeconds: 1200,
  collectionMediaBytes: 1024 ** 3,
};

/** TTS jobs one person may have queued or running at once. */
export const DEFAULT_TTS_JOBS_PER_PERSON = 2;

/** Characters per spoken word, spaces included: Norwegian news text measures 5.4–6.6 with eSpeak NG. */
const CHARS_PER_WORD = 6;
/** eSpeak NG's output: 22 050 Hz mono 16-bit. */
const WAV_BYTES_PER_SECOND = 22_050 * 2;

function estimateSpeechSeconds(chars: number, rate: number): number {
  return Math.ceil(((chars / CHARS_PER_WORD) / rate) * 60);
}

function estimateSpeechBytes(seconds: number): number {
  return Math.ceil(seconds * WAV_BYTES_PER_SECOND) + 44;
}

export type SpeechRefusal =
  | { limit: 'text'; chars: number; max: number }
  | { limit: 'audio'; seconds: number; max: number }
  | { limit: 'collection_bytes'; bytes: number; max: number };

/** The first limit a job of `chars` characters at `rate` words a minute would pass, or undefined. */
export function speechRefusal(limits: SpeechLimits, chars: number, rate: number, collectionBytes = 0): SpeechRefusal | undefined {
  if (chars > limits.maxTextChars) return { limit: 'text', chars, max: limits.maxTextChars };
  const seconds = estimateSpeechSeconds(chars, rate);
  if (seconds > limits.maxAudioSeconds) return { limit: 'audio', seconds, max: limits.maxAudioSeconds };
  const bytes = collectionBytes + estimateSpeechBytes(seconds);
  if (bytes > limits.collectionMediaBytes) return { limit: 'collection_bytes', bytes, max: limits.collectionMediaBytes };
  return undefined;
}

/** A job's failure reason, naming the setting to change. */
function describeRefusal(refusal: SpeechRefusal): string {
  switch (refusal.limit) {
    case 'text':
      return `the text is ${refusal.chars} characters; TTS_MAX_TEXT_CHARS is ${refusal.max}`;
    case 'audio':
      return `the audio would be about ${refusal.seconds} s; TTS_MAX_AUDIO_SECONDS is ${refusal.max}`;
    case 'collection_bytes':
      return `the collection's media would reach ${refusal.bytes} bytes; MEDIA_BYTES_PER_COLLECTION is ${refusal.max}`;
  }
}

export class SpeechLimitError extends Error {
  constructor(readonly refusal: SpeechRefusal) {
    super(describeRefusal(refusal));
    this.name = 'SpeechLimitError';
  }
}
