import { AppError, uuidv7 } from '@inntak/core';
import { requireLevelOn, type Actor } from '@inntak/access';
import { requireRoomKind } from './mixer-channels.js';
import { MIXER_REQUIREMENTS, type MixerChannel } from './mixer.js';
import { MIX_TARGET_LUFS } from './mixdown.js';
import type { FileStore, MediaCreateTx, MediaStore } from './ports.js';
import { placeMediaFile } from './place-media.js';
import { readWhole } from './read-whole.js';
import { requireLevel } from '@inntak/access';
import { fileKeyOf, type MediaMetadata } from './types.js';
import { runInDspThread, DspThreadError } from './dsp-client.js';
import { RefusedAudioError, type MixSource } from './dsp-work.js';

/** Channels one mix reads at most (each source is held in memory while mixing). */
export const MAX_MIX_CHANNELS = 32;

/**
 * POST /intentions/render_mix: member on the room, the room a `communication` node, and read on
 * every channel's source (403 otherwise); answers the job's id. The job finds the channels as they are when it runs.
 */
export async function queueMixdown(store: MediaStore, actor: Actor, input: { room_id: string; target_lufs?: number }): Promise<number> {
  return store.transaction(async (tx) => {
    const room = await requireLevel(tx, actor, input.room_id, MIXER_REQUIREMENTS.render_mix, 'room_id');
    requireRoomKind(room.node_kind);
    // The mix becomes the room's media, read by everyone who reads the room: whoever asks for it
    // must be able to read every source it would read (set by someone who could, perhaps since
    // revoked), else a member of the room hears audio kept from them. Which one is not said.
    for (const sourceId of await tx.mixSourcesOf(input.room_id, MAX_MIX_CHANNELS)) {
      if (!(await tx.readableMediaOf(actor, sourceId))) {
        throw new AppError('forbidden', { detail: 'room_id: en kanal har en kilde du ikke kan lese' });
      }
    }
    return tx.enqueueMixdown({
      room_id: input.room_id,
      ...(input.target_lufs !== undefined ? { target_lufs: input.target_lufs } : {}),
      ...(actor.personId ? { requested_by: actor.personId } : {}),
    });
  });
}

/** A channel with its source's file facts, as the job reads it. */
export interface MixChannelSource {
  channel: MixerChannel;
  /** The source media node's mime and type; null when the channel has no source or it is gone. */
  source: { id: string; mime: string; media_type: string } | null;
}

/** What the render_mix job needs of the database (packages/postgres/src/media). */
export interface MixdownCatalog {
  room(roomId: string): Promise<{ id: string; node_kind: string; title: string | null } | undefined>;
  /** The room's channels in creation order, at most `limit`. */
  channels(roomId: string, limit: number): Promise<MixChannelSource[]>;
  /** One transaction: `check` first (throwing rolls back), then the node and its edges, `beforeCommit` last. */
  createMedia(input: { id: string; ownerId: string; title: string | null; metadata: MediaMetadata; check?: (tx: MediaCreateTx) => Promise<void>; beforeCommit: () => void }): Promise<{ id: string }>;
  deleteMedia(id: string): Promise<void>;
}

/** A mix that cannot be made however often it is tried (the task fails it permanently). */
export class MixdownError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'MixdownError';
  }
}

export interface MixdownResult {
  media_id: string;
  bytes: number;
  duration_s: number;
  channels: number;
  loudness_lufs: number;
  peak_dbfs: number;
}

/**
 * Mixes a room's channels into a new audio/wav media node owned by the room (has_media): every
 * channel with a source, muted ones skipped, normalised to `target_lufs` under the ceiling. The
 * file is written as text-to-speech writes it: temporary name, row committed (the signal
 * checked inside the transaction), then renamed into place.
 */
export async function renderMix(
  deps: { catalog: MixdownCatalog; files: FileStore; collectionMediaBytes?: number; now?: () => Date },
  request: { room_id: string; target_lufs?: number; jobId?: number; requested_by?: string },
  signal: AbortSignal,
): Promise<MixdownResult> {
  const room = await deps.catalog.room(request.room_id);
  if (!room) throw new MixdownError(`room ${request.room_id} does not exist`);
  if (room.node_kind !== 'communication') throw new MixdownError(`node ${room.id} is a ${room.node_kind}, not a communication room`);
  const channels = (await deps.catalog.channels(room.id, MAX_MIX_CHANNELS)).filter((c) => c.source !== null && !c.channel.muted);
  if (channels.length === 0) throw new MixdownError('the room has no unmuted channel with a source');
  const sources: MixSource[] = [];
  for (const { channel, source } of channels) {
    signal.throwIfAborted();
    if (source!.media_type !== 'audio') throw new MixdownError(`channel ${channel.id}: its source ${source!.id} is not audio`);
    const bytes = await readWhole(deps.files, fileKeyOf(source!.id, source!.mime));
    sources.push({ label: channel.id, bytes, mime: source!.mime, gain_db: channel.gain_db, offset_ms: channel.offset_ms, effects: channel.effects });
  }
  // Headers checked, then decoded and mixed, in a thread: the event loop keeps heartbeating and
  // answering SIGTERM, and the signal ends the thread wherever it is (issue 35).
  let mix;
  try {
    mix = await runInDspThread({ kind: 'mix', sources, target_lufs: request.target_lufs ?? MIX_TARGET_LUFS.default }, signal);
  } catch (error) {
    if (error instanceof RefusedAudioError || error instanceof DspThreadError) throw new MixdownError(error.message);
    throw error;
  }
  const { wav } = mix;
  const sourceIds = channels.map((c) => c.source!.id);
  // Both checks run in the transaction that creates the node: access revoked since the job was
  // queued, or another writer that filled the collection meanwhile, refuse the mix at commit.
  const check = async (tx: MediaCreateTx) => {
    if (request.requested_by !== undefined) await requireAskerMayStillMix(tx, request.requested_by, room.id, sourceIds);
    if (deps.collectionMediaBytes !== undefined) {
      const used = await tx.collectionMediaBytes(room.id);
      if (used + wav.byteLength > deps.collectionMediaBytes) throw new MixdownError(`the collection's media would reach ${used + wav.byteLength} bytes; MEDIA_BYTES_PER_COLLECTION is ${deps.collectionMediaBytes}`);
    }
  };
  const round = (x: number) => Math.round(x * 100) / 100;
  const metadata: MediaMetadata = {
    media_type: 'audio',
    mime: 'audio/wav',
    bytes: wav.byteLength,
    duration_s: Math.round(mix.duration_s * 1000) / 1000,
    generated: true,
    // The channels change after the mix: it cannot be made again as it was.
    regenerable: false,
    source_node_id: room.id,
    last_accessed_at: (deps.now ?? (() => new Date()))().toISOString(),
    sample_rate: mix.sample_rate,
    channels: sources.length,
    target_lufs: request.target_lufs ?? MIX_TARGET_LUFS.default,
    loudness_lufs: round(mix.loudness_lufs),
    peak_dbfs: round(mix.peak_dbfs),
    ...(request.jobId !== undefined ? { job_id: request.jobId } : {}),
  };
  const id = uuidv7();
  const key = fileKeyOf(id, metadata.mime);
  await placeMediaFile(deps.files, key, wav, {
    create: () => deps.catalog.createMedia({ id, ownerId: room.id, title: room.title ? `Miks: ${room.title}` : 'Miks', metadata, check, beforeCommit: () => signal.throwIfAborted() }),
    delete: () => deps.catalog.deleteMedia(id),
  });
  return { media_id: id, bytes: wav.byteLength, duration_s: metadata.duration_s!, channels: sources.length, loudness_lufs: metadata.loudness_lufs as number, peak_dbfs: metadata.peak_dbfs as number };
}

/**
 * The person who queued the mix must, when it is made, still be a member of the room and read
 * every source it mixes (queueMixdown checked this when queueing; access may have been revoked
 * since, or a source set by someone else). Which source is not said, as at queueing.
 */
async function requireAskerMayStillMix(tx: MediaCreateTx, personId: string, roomId: string, sourceIds: readonly string[]): Promise<void> {
  const actor = await tx.actorOf(personId);
  if (!actor) throw new MixdownError('the person who asked for the mix no longer exists');
  try {
    requireLevelOn(actor, await tx.levelOn(actor, roomId), MIXER_REQUIREMENTS.render_mix, 'room_id');
  } catch (error) {
    if (error instanceof AppError) throw new MixdownError('the person who asked for the mix is no longer a member of the room');
    throw error;
  }
  for (const sourceId of sourceIds) {
    if (!(await tx.readableMediaOf(actor, sourceId))) throw new MixdownError('the person who asked for the mix may no longer read every channel\'s source');
  }
}
