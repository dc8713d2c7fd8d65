import { describe, expect, it } from '@jest/globals';
import type { AccessLevel } from '@inntak/access';
import { changeMixerChannel, createMixerChannel, setLiveSession } from './mixer-channels.js';
import type { MixerChannel } from './mixer.js';
import type { LiveRoomRow, MediaRecord, MediaStore, MediaTx } from './ports.js';
import { queueMixdown } from './render-mix.js';
import { queueSpeech } from './speech-queue.js';
import { DEFAULT_SPEECH_LIMITS } from './speech-limits.js';

const ROOM = '00000000-0000-4000-8000-00000000000a';
const PERSON = { personId: 'p-1', isAdmin: false };

const VOICE = '00000000-0000-4000-8000-00000000000b';
const PICTURE = '00000000-0000-4000-8000-00000000000c';
const media = (id: string, media_type: 'audio' | 'image'): MediaRecord => ({
  id,
  title: null,
  created_at: new Date(),
  metadata: { media_type, mime: media_type === 'audio' ? 'audio/wav' : 'image/png', bytes: 1, generated: false, regenerable: false, last_accessed_at: '' },
});

/**
 * An in-memory media store: nodes with the person's level on each (ROOM a communication node),
 * two readable media nodes (VOICE audio, PICTURE an image), channels, live rooms, queued jobs.
 */
function memoryStore(levels: Record<string, AccessLevel | null>, text = 'Hei') {
  const channels = new Map<string, MixerChannel>();
  const rooms = new Map<string, LiveRoomRow>();
  const queued: unknown[] = [];
  const tx: MediaTx = {
    levelOn: async (_actor, id) => (id in levels ? { nodeKind: id === ROOM ? 'communication' : 'content', level: levels[id]! } : undefined),
    readableMediaOf: async (_actor, id) => (id === VOICE ? media(VOICE, 'audio') : id === PICTURE ? media(PICTURE, 'image') : undefined),
    enqueueMixdown: async (payload) => queued.push(payload),
    mixSourcesOf: async (roomId) => [...channels.values()].filter((c) => c.room_id === roomId && c.node_id !== null).map((c) => c.node_id!),
    enqueueTranscription: async (payload) => queued.push(payload),
    insertMedia: async () => {},
    speechSource: async (id) => ({ id, title: null, content: text }),
    collectionMediaBytes: async () => 0,
    personUploadBytes: async () => 0,
    lockSpeechQueueOf: async () => {},
    speechJobsOf: async () => queued.length,
    enqueueSpeech: async (payload) => queued.push(payload),
    mixerChannel: async (id) => channels.get(id),
    insertMixerChannel: async ({ created_by: _, ...row }) => {
      channels.set(row.id, { ...row, updated_at: new Date().toISOString() });
      return channels.get(row.id)!;
    },
    updateMixerChannel: async (id, update) => {
      channels.set(id, { ...channels.get(id)!, ...update });
      return channels.get(id)!;
    },
    liveRoom: async (id) => rooms.get(id),
    startLiveRoom: async (id) => void rooms.set(id, { room_id: id, started_at: new Date(), ended_at: null }),
    endLiveRoom: async (id) => void rooms.set(id, { ...rooms.get(id)!, ended_at: new Date() }),
    reprioritiseQueuedJobs: async () => 2,
  };
  const store: MediaStore = {
    transaction: (work) => work(tx),
    readableMedia: async () => undefined,
    mediaById: async () => undefined,
    deleteMedia: async () => {},
    transcriptionOf: async () => [],
    touchMediaAccess: async () => false,
    latestPruneRun: async () => null,
  };
  return { store, queued };
}

describe('mixer use cases', () => {
  it('need admin on the room to create a channel and member to change it; a hidden room is 404', async () => {
    const { store } = memoryStore({ [ROOM]: 'member' });
    await expect(createMixerChannel(store, PERSON, { room_id: ROOM, label: 'Vert' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(createMixerChannel(store, PERSON, { room_id: 'elsewhere', label: 'Vert' })).rejects.toMatchObject({ code: 'not_found', detail: 'room_id' });
    const channel = await createMixerChannel(store, { personId: null, isAdmin: true }, { room_id: ROOM, label: 'Vert' });
    expect(channel).toMatchObject({ room_id: ROOM, gain_db: 0, muted: false, effects: {}, role: 'guest' });
    expect(await changeMixerChannel(store, PERSON, channel.id, { op: 'set_gain', gain_db: -6 })).toMatchObject({ gain_db: -6 });
    await expect(changeMixerChannel(store, PERSON, channel.id, { op: 'set_mixer_role', role: 'host' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(changeMixerChannel(store, PERSON, 'missing', { op: 'set_mute', muted: true })).rejects.toMatchObject({ code: 'not_found', detail: 'channel_id' });
  });

  it('toggle an effect on and off (a new one on with its defaults), set its parameters, refuse an unknown one', async () => {
    const { store } = memoryStore({ [ROOM]: 'admin' });
    const channel = await createMixerChannel(store, PERSON, { room_id: ROOM, label: 'Vert', effects: { high_pass: { cutoff_hz: 120 } } });
    expect(channel.effects).toEqual({ high_pass: { enabled: true, cutoff_hz: 120 } });
    expect((await changeMixerChannel(store, PERSON, channel.id, { op: 'toggle_effect', effect: 'high_pass' })).effects.high_pass).toEqual({ enabled: false, cutoff_hz: 120 });
    expect((await changeMixerChannel(store, PERSON, channel.id, { op: 'toggle_effect', effect: 'fade' })).effects.fade).toEqual({ enabled: true, fade_in_ms: 0, fade_out_ms: 0 });
    const set = await changeMixerChannel(store, PERSON, channel.id, { op: 'set_effect', effect: 'compressor', settings: { ratio: 8 } });
    expect(set.effects.compressor).toMatchObject({ enabled: true, ratio: 8, threshold_db: -18 });
    await expect(changeMixerChannel(store, PERSON, channel.id, { op: 'toggle_effect', effect: 'reverb' })).rejects.toMatchObject({ code: 'invalid_input', detail: expect.stringMatching(/^effect: ukjent effekt reverb/) });
    await expect(changeMixerChannel(store, PERSON, channel.id, { op: 'set_effect', effect: 'compressor', settings: { ratio: 50 } })).rejects.toMatchObject({
      code: 'invalid_input',
      detail: 'compressor.ratio: må være et tall fra 1 til 20',
    });
  });

  it('a room is a communication node; a source is an audio media node the caller may read', async () => {
    const { store } = memoryStore({ [ROOM]: 'admin', other: 'admin' });
    await expect(createMixerChannel(store, PERSON, { room_id: 'other', label: 'Vert' })).rejects.toMatchObject({ code: 'invalid_input', detail: 'room_id: et rom er en communication-node, ikke content' });
    await expect(createMixerChannel(store, PERSON, { room_id: ROOM, label: 'Vert', node_id: PICTURE })).rejects.toMatchObject({ code: 'invalid_input', detail: 'node_id: kilden må være en lydfil, ikke image' });
    await expect(createMixerChannel(store, PERSON, { room_id: ROOM, label: 'Vert', node_id: 'hidden' })).rejects.toMatchObject({ code: 'not_found', detail: 'node_id' });
    const channel = await createMixerChannel(store, PERSON, { room_id: ROOM, label: 'Vert', node_id: VOICE, offset_ms: 250 });
    expect(channel).toMatchObject({ node_id: VOICE, offset_ms: 250 });
    await expect(changeMixerChannel(store, PERSON, channel.id, { op: 'set_channel_source', node_id: PICTURE })).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await changeMixerChannel(store, PERSON, channel.id, { op: 'set_channel_offset', offset_ms: 1000 })).toMatchObject({ offset_ms: 1000 });
  });

  it('render_mix needs member on a communication room and queues the job as the person', async () => {
    const { store, queued } = memoryStore({ [ROOM]: 'member', other: 'member', seen: 'reader' });
    await expect(queueMixdown(store, PERSON, { room_id: 'other' })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(queueMixdown(store, PERSON, { room_id: 'seen' })).rejects.toMatchObject({ code: 'forbidden' });
    await queueMixdown(store, PERSON, { room_id: ROOM, target_lufs: -20 });
    expect(queued).toEqual([{ room_id: ROOM, target_lufs: -20, requested_by: 'p-1' }]);
  });

  it('start and end a live session; ending one that is not live is a conflict', async () => {
    const { store } = memoryStore({ [ROOM]: 'admin' });
    await expect(setLiveSession(store, PERSON, ROOM, false)).rejects.toMatchObject({ code: 'conflict' });
    expect(await setLiveSession(store, PERSON, ROOM, true)).toMatchObject({ room_id: ROOM, live: true, ended_at: null, reprioritised: 2 });
    expect(await setLiveSession(store, PERSON, ROOM, false)).toMatchObject({ live: false, ended_at: expect.any(String) });
    await expect(setLiveSession(store, PERSON, ROOM, false)).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('queueSpeech', () => {
  const limits = { ...DEFAULT_SPEECH_LIMITS, jobsPerPerson: 1 };
  it('needs member on the node, queues the job as the person, and refuses one past the per-person limit', async () => {
    const { store, queued } = memoryStore({ n: 'reader', m: 'member' });
    await expect(queueSpeech(store, PERSON, { node_id: 'n' }, limits, { maxAttempts: 3 })).rejects.toMatchObject({ code: 'forbidden' });
    await queueSpeech(store, PERSON, { node_id: 'm', rate: 200 }, limits, { maxAttempts: 3 });
    expect(queued).toEqual([{ node_id: 'm', rate: 200, requested_by: 'p-1' }]);
    await expect(queueSpeech(store, PERSON, { node_id: 'm' }, limits, { maxAttempts: 3 })).rejects.toMatchObject({ code: 'tts_jobs_busy' });
  });

  it('refuses a text over the limit before counting jobs', async () => {
    const { store, queued } = memoryStore({ m: 'member' }, 'x'.repeat(DEFAULT_SPEECH_LIMITS.maxTextChars + 1));
    await expect(queueSpeech(store, PERSON, { node_id: 'm' }, limits, { maxAttempts: 3 })).rejects.toMatchObject({ code: 'tts_text_too_long' });
    expect(queued).toEqual([]);
  });
});
