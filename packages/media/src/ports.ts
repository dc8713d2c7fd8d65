import type { Readable } from 'node:stream';

/**
 * The file store port: files named by key (fileKeyOf) in one flat store. A file is written to a
 * temporary name first and only renamed into place after the database row describing it has
 * committed; a delete removes the row first, then the file. A crash between the two steps leaves
 * a temporary file or an orphan, which sweepOrphans (media-files.ts) settles.
 */
export interface FileStore {
  /** Writes bytes under a fresh temporary name for `key`; returns that name. */
  writeTemp(key: string, bytes: Uint8Array): Promise<string>;
  /** Renames a temporary file into place as `key`. */
  commit(tempName: string, key: string): Promise<void>;
  /** Removes a temporary file (no error when it is already gone). */
  discard(tempName: string): Promise<void>;
  /** Removes a file (no error when it is already gone). */
  remove(key: string): Promise<void>;
  /** Size in bytes, or null when there is no such file. */
  size(key: string): Promise<number | null>;
  /** The bytes from `start` to `end` inclusive (the whole file without a range). */
  read(key: string, range?: { start: number; end: number }): Readable;
  /** Every file: placed ones by key, temporary ones with the key they were written for. */
  list(): Promise<StoredFile[]>;
}

export interface StoredFile {
  key: string;
  /** Set for a temporary file: its own name. */
  tempName?: string;
  bytes: number;
  modifiedAt: Date;
}

/**
 * The speech synthesizer port. The production adapter (eSpeak NG, GPL-3.0) stays in its own file
 * in apps/worker so the engine can be swapped without touching anything else.
 */
export interface SpeechSynthesizer {
  /** A RIFF/WAVE file of `text` read aloud. Rejects with signal.reason once the signal aborts. */
  synthesize(text: string, options: SpeechOptions): Promise<Uint8Array>;
}

export interface SpeechOptions {
  /** eSpeak NG voice name; `nb` (Norwegian Bokmål) by default. */
  voice: string;
  /** Words per minute, 80–450. */
  rate: number;
  signal?: AbortSignal;
}

export const DEFAULT_VOICE = 'nb';
export const DEFAULT_RATE = 175;
export const RATE_RANGE = { min: 80, max: 450 } as const;
/** Voice names as eSpeak NG spells them (`nb`, `en-gb`, `en+f3`); nothing that could be a flag. */
export const VOICE_PATTERN = /^[a-z]{2,3}(-[a-z0-9]{1,8}){0,3}(\+[a-z0-9]{1,8})?$/;
