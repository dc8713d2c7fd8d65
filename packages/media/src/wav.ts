/**
 * Just enough of RIFF/WAVE (PCM) to check a synthesizer's output, measure it and join the
 * pieces of a long text into one file. eSpeak NG writes 16-bit mono PCM; other PCM layouts are
 * read too, anything compressed is refused.
 */
export interface WavFormat {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
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
      if (view.getUint16(body, true) !== 1) throw new InvalidWavError('not PCM');
      format = { channels: view.getUint16(body + 2, true), sampleRate: view.getUint32(body + 4, true), bitsPerSample: view.getUint16(body + 14, true) };
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
