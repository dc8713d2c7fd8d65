import { parseBuffer } from 'music-metadata';
import { InvalidWavError, parseWav } from './wav.js';

/**
 * What the service decodes at all (issue 35, finding 4): a WAV header may claim any sample rate,
 * and the mixdown resampled every source to the highest one before it checked any length, so a
 * 12 KB upload claiming 100 MHz held the worker's event loop for minutes and asked for gigabytes.
 * Every source's rate, channels and length are read from its header and checked against these
 * before a sample is decoded.
 */
export const AUDIO_BOUNDS = { minSampleRate: 8000, maxSampleRate: 192_000, maxChannels: 8 } as const;

/** Audio refused by AUDIO_BOUNDS or a job's length limit: no retry can change that. */
export class AudioOutOfBoundsError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'AudioOutOfBoundsError';
  }
}

/** What a header says about audio: rate, channels and length (s). */
export interface AudioHeader {
  sampleRate: number;
  channels: number;
  durationS: number;
}

/**
 * Reads rate, channels and length from the file's header without decoding it: WAV from its fmt
 * and data chunks, MP3, Ogg/Opus and FLAC through music-metadata (frame headers, STREAMINFO,
 * the last granule). A header that cannot be read throws InvalidWavError or music-metadata's error.
 */
export async function readAudioHeader(bytes: Uint8Array, mime: string): Promise<AudioHeader> {
  if (mime === 'audio/wav') {
    const info = parseWav(bytes);
    return { sampleRate: info.sampleRate, channels: info.channels, durationS: info.durationS };
  }
  const { format } = await parseBuffer(bytes, { mimeType: mime, size: bytes.byteLength }, { duration: true, skipCovers: true });
  if (!format.sampleRate || !format.numberOfChannels) throw new InvalidWavError('no sample rate or channel count in the header');
  if (format.duration === undefined || !Number.isFinite(format.duration)) throw new InvalidWavError('no length in the header');
  return { sampleRate: format.sampleRate, channels: format.numberOfChannels, durationS: format.duration };
}

/** The reason a header is refused (in Norwegian, for the API's 422 and the job's last_error), or undefined. */
export function audioOutOfBounds(header: AudioHeader, maxSeconds: number): string | undefined {
  const { minSampleRate, maxSampleRate, maxChannels } = AUDIO_BOUNDS;
  if (!(header.sampleRate >= minSampleRate && header.sampleRate <= maxSampleRate)) {
    return `samplingsfrekvensen er ${header.sampleRate} Hz; den må være fra ${minSampleRate} til ${maxSampleRate} Hz`;
  }
  if (!(header.channels >= 1 && header.channels <= maxChannels)) return `lyden har ${header.channels} kanaler; høyst ${maxChannels}`;
  if (!(header.durationS <= maxSeconds)) return `lyden varer ${Math.round(header.durationS)} s; høyst ${maxSeconds} s`;
  return undefined;
}
