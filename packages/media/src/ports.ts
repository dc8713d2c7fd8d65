import type { Readable } from 'node:stream';
import type { Actor, AudienceFacts, WriterLevel } from '@inntak/access';
import type { JobPayloads } from '@inntak/jobs';
import type { MixerChannel } from './mixer.js';
import type { PruneDecision } from './pruning.js';
import type { MediaMetadata, TranscriptSegment } from './types.js';

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

/** One pruning run as reported and logged (prune_runs). */
export interface PruneReport {
  mode: 'run' | 'dry_run';
  trigger: string;
  started_at: string;
  finished_at: string;
  disk_percent: number;
  deleted: PruneDecision[];
  freed_bytes: number;
  /** What the orphan sweep did, per file (sweep.ts SweepAction kinds). */
  swept: Array<{ kind: 'place' | 'discard' | 'remove'; key: string }>;
}

/** A media node as its readers see it. */
export interface MediaRecord {
  id: string;
  title: string | null;
  metadata: MediaMetadata;
  created_at: Date;
}

/** A new mixer channel row, with every default already chosen. */
export type MixerChannelRow = Omit<MixerChannel, 'updated_at'> & { created_by: string | null };

export type MixerChannelUpdate = Partial<Pick<MixerChannel, 'node_id' | 'gain_db' | 'muted' | 'effects' | 'offset_ms' | 'role'>>;

export interface LiveRoomRow {
  room_id: string;
  started_at: Date;
  ended_at: Date | null;
}

/** The media writes, inside one transaction (row locks held until it ends). */
export interface MediaTx {
  /** The node if the actor may see it (any node for the operator), with the actor's level on it. */
  levelOn(actor: Actor, nodeId: string): Promise<WriterLevel | undefined>;
  /** A node's title and content, the text speech would read. */
  speechSource(nodeId: string): Promise<{ id: string; title: string | null; content: string | null } | undefined>;
  /**
   * Bytes of media in the node's fullest collection (the node itself when it belongs to none),
   * read under a lock on those scopes held until the transaction ends, so a check and the insert
   * after it are one step for concurrent writers (MEDIA_BYTES_PER_COLLECTION).
   */
  collectionMediaBytes(nodeId: string): Promise<number>;
  /**
   * Bytes of the media the person uploaded (metadata.uploaded_by), read under a lock on the
   * person held until the transaction ends (MEDIA_UPLOAD_BYTES_PER_PERSON).
   */
  personUploadBytes(personId: string): Promise<number>;
  /** Serialises speech queueing of one person until the transaction ends. */
  lockSpeechQueueOf(personId: string): Promise<void>;
  /** The person's tts_generate jobs queued or running. */
  speechJobsOf(personId: string): Promise<number>;
  enqueueSpeech(payload: JobPayloads['tts_generate'], options: { maxAttempts: number }): Promise<number>;
  enqueueMixdown(payload: JobPayloads['render_mix']): Promise<number>;
  /** The source media ids of the room's channels (muted ones too: a channel is unmuted after queueing), at most `limit` channels. */
  mixSourcesOf(roomId: string, limit: number): Promise<string[]>;
  enqueueTranscription(payload: JobPayloads['speech_transcription']): Promise<number>;
  /** A media node the actor may read in full (any media node for the operator), or undefined. */
  readableMediaOf(actor: Actor, id: string): Promise<MediaRecord | undefined>;
  /** A media node owned by `ownerId` (has_media owner → media, belongs_to media → owner). */
  insertMedia(input: { id: string; ownerId: string; title: string | null; metadata: MediaMetadata }): Promise<void>;
  mixerChannel(id: string, options: { forUpdate: boolean }): Promise<MixerChannel | undefined>;
  insertMixerChannel(row: MixerChannelRow): Promise<MixerChannel>;
  /** Writes the change with a fresh updated_at; the row's trigger announces it. */
  updateMixerChannel(id: string, update: MixerChannelUpdate): Promise<MixerChannel>;
  liveRoom(roomId: string): Promise<LiveRoomRow | undefined>;
  startLiveRoom(roomId: string): Promise<void>;
  endLiveRoom(roomId: string): Promise<void>;
  /** Recomputes the queued jobs' priorities (live-room rules); how many changed. */
  reprioritiseQueuedJobs(): Promise<number>;
}

/**
 * What a job asks inside the transaction that creates its media node, before the insert: the
 * quota (under the same per-scope lock POST /media takes) and the asker's access as they are now.
 */
export interface MediaCreateTx extends Pick<MediaTx, 'levelOn' | 'readableMediaOf' | 'collectionMediaBytes'> {
  /** The person as an actor (isAdmin when a system admin), or undefined when there is no such person. */
  actorOf(personId: string): Promise<Actor | undefined>;
}

/** Media's store: media nodes, mixer channels, live rooms, the pruning log. */
export interface MediaStore {
  transaction<T>(work: (tx: MediaTx) => Promise<T>): Promise<T>;
  /** A media node the person may read in full (creator, an access row, or readable/open), or undefined. */
  readableMedia(personId: string, id: string): Promise<MediaRecord | undefined>;
  /** A media node by id, whoever asks: only for a signed link, whose signature stands for a reader's access. */
  mediaById(id: string): Promise<MediaRecord | undefined>;
  /** A media node's transcription segments in time order, at most `limit`. */
  transcriptionOf(id: string, limit: number): Promise<TranscriptSegment[]>;
  /** Deletes a media node (its edges go with it); nothing when there is none. */
  deleteMedia(id: string): Promise<void>;
  /** Moves last_accessed_at to now unless it moved within the last minute; true when it did. */
  touchMediaAccess(id: string, now?: Date): Promise<boolean>;
  latestPruneRun(): Promise<PruneReport | null>;
}

/** What the change stream reads of mixers (docs/realtime.md): a caller's channels, and changed channels with their room's audience. */
export interface MixerFeed {
  channelsFor(callerId: string, limit: number): Promise<MixerChannel[]>;
  readChanges(ids: readonly string[]): Promise<Array<{ channel: MixerChannel; room: AudienceFacts }>>;
}
