import type { FileStore } from './ports.js';

/** A stored file's bytes, whole (the mixdown and transcription decode them in memory). */
export async function readWhole(files: FileStore, key: string): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of files.read(key)) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}
