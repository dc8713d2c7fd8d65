/**
 * Just enough of RIFF/WAVE (PCM) to check a synthesizer's output, measure it and join the
 * pieces of a long text into one file. eSpeak NG writes 16-bit mono PCM; other PCM layouts are
 * read too, anything compressed is refused.
 */
export interface WavFormat {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** IEEE float samples (format 3); integer PCM otherwise. */
  float?: true;
}

export interface WavInfo extends WavFormat {
  /** Offset and length of the sample data. */
  dataOffset: number;
  dataBytes: number;
  durationS: number;
}

export class InvalidWavError extends Error {
  constructor(reason: string) {
    super(`not a PCM WAV file: ${reason}`);
    this.name = 'InvalidWavError';
  }
}

const ascii = (bytes: Uint8Array, at: number) => String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);

export function parseWav(bytes: Uint8Array): WavInfo {
  if (bytes.length < 12 || ascii(bytes, 0) !== 'RIFF' || ascii(bytes, 8) !== 'WAVE') throw new InvalidWavError('no RIFF/WAVE header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let format: WavFormat | undefined;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = ascii(bytes, at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.length) throw new InvalidWavError('short fmt chunk');
      const tag = view.getUint16(body, true);
      // 1 integer PCM, 3 IEEE float, 0xfffe WAVE_FORMAT_EXTENSIBLE (its sub-format decides).
      const subTag = tag === 0xfffe && size >= 26 ? view.getUint16(body + 24, true) : tag;
      if (subTag !== 1 && subTag !== 3) throw new InvalidWavError('not PCM');
      format = { channels: view.getUint16(body + 2, true), sampleRate: view.getUint32(body + 4, true), bitsPerSample: view.getUint16(body + 14, true), ...(subTag === 3 ? { float: true } : {}) };
    } else if (id === 'data') {
      if (!format) throw new InvalidWavError('data before fmt');
      if (format.sampleRate === 0 || format.channels === 0 || format.bitsPerSample === 0) throw new InvalidWavError('empty format');
      // A writer that streams may leave the size unset (0 or 0xffffffff): the data runs to the end.
      const dataBytes = size === 0 || body + size > bytes.length ? bytes.length - body : size;
      const bytesPerSecond = format.sampleRate * format.channels * (format.bitsPerSample / 8);
      return { ...format, dataOffset: body, dataBytes, durationS: dataBytes / bytesPerSecond };
    }
    at = body + size + (size % 2);
  }
  throw new InvalidWavError('no data chunk');
}

/** One WAV of the pieces' samples in order; every piece must have the first one's format. */
export function concatWav(pieces: readonly Uint8Array[]): Uint8Array {
  if (pieces.length === 0) throw new InvalidWavError('nothing to join');
  const infos = pieces.map(parseWav);
  const first = infos[0]!;
  for (const info of infos) {
    if (info.sampleRate !== first.sampleRate || info.channels !== first.channels || info.bitsPerSample !== first.bitsPerSample) {
      throw new InvalidWavError('pieces differ in format');
    }
  }
  const dataBytes = infos.reduce((sum, info) => sum + info.dataBytes, 0);
  const out = new Uint8Array(44 + dataBytes);
  const view = new DataView(out.buffer);
  const write = (at: number, text: string) => {
    for (let i = 0; i < 4; i++) out[at + i] = text.charCodeAt(i);
  };
  const blockAlign = first.channels * (first.bitsPerSample / 8);
  write(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  write(8, 'WAVE');
  write(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, first.channels, true);
  view.setUint32(24, first.sampleRate, true);
  view.setUint32(28, first.sampleRate * blockAlign, true);
  view.setUint16(32, blockAlign, true);
  view.setUint16(34, first.bitsPerSample, true);
  write(36, 'data');
  view.setUint32(40, dataBytes, true);
  let at = 44;
  pieces.forEach((piece, i) => {
    const info = infos[i]!;
    out.set(piece.subarray(info.dataOffset, info.dataOffset + info.dataBytes), at);
    at += info.dataBytes;
  });
  return out;
}

/** The samples as mono Float32 (full scale ±1): channels averaged; 8/16/24/32-bit PCM or 32/64-bit float. */
export function decodeWav(bytes: Uint8Array): { samples: Float32Array; sampleRate: number } {
  const info = parseWav(bytes);
  const width = info.bitsPerSample / 8;
  if (![1, 2, 3, 4, 8].includes(width) || (info.float && width < 4) || (!info.float && width === 8)) throw new InvalidWavError(`${info.bitsPerSample}-bit samples`);
  const view = new DataView(bytes.buffer, bytes.byteOffset + info.dataOffset, info.dataBytes);
  const frames = Math.floor(info.dataBytes / (width * info.channels));
  const read = (at: number): number => {
    if (info.float) return width === 4 ? view.getFloat32(at, true) : view.getFloat64(at, true);
    if (width === 1) return (view.getUint8(at) - 128) / 128;
    if (width === 2) return view.getInt16(at, true) / 32768;
    if (width === 3) return ((view.getUint8(at) | (view.getUint8(at + 1) << 8) | (view.getInt8(at + 2) << 16)) / 8388608);
    return view.getInt32(at, true) / 2147483648;
  };
  const samples = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let c = 0; c < info.channels; c++) sum += read((f * info.channels + c) * width);
    samples[f] = sum / info.channels;
  }
  return { samples, sampleRate: info.sampleRate };
}

/** A 16-bit mono PCM WAV of the samples (clamped to full scale, rounded). */
export function encodeWav(samples: Float32Array, sampleRate: number): Uint8Array {
  const pcm = new Uint8Array(44 + samples.length * 2);
  const view = new DataView(pcm.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(44 + i * 2, Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), true);
  pcm.set(headerOnly(sampleRate));
  view.setUint32(4, 36 + samples.length * 2, true);
  view.setUint32(40, samples.length * 2, true);
  return pcm;
}

/** The 44-byte header of an empty 16-bit mono PCM WAV. */
function headerOnly(sampleRate: number): Uint8Array {
  const out = new Uint8Array(44);
  const view = new DataView(out.buffer);
  out.set([82, 73, 70, 70], 0);
  view.setUint32(4, 36, true);
  out.set([87, 65, 86, 69, 102, 109, 116, 32], 8);
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  out.set([100, 97, 116, 97], 36);
  return out;
}
