import { describe, expect, it } from '@jest/globals';
import type { AccessLevel } from '@inntak/access';
import { changeMixerChannel, createMixerChannel, setLiveSession } from './mixer-channels.js';
import { MAX_EFFECTS, type MixerChannel } from './mixer.js';
import type { LiveRoomRow, MediaStore, MediaTx } from './ports.js';
import { queueSpeech } from './speech-queue.js';
import { DEFAULT_SPEECH_LIMITS } from './speech-limits.js';

const ROOM = '00000000-0000-4000-8000-00000000000a';
const PERSON = { personId: 'p-1', isAdmin: false };

/** An in-memory media store: nodes with the person's level on each, channels, live rooms, queued speech jobs. */
function memoryStore(levels: Record<string, AccessLevel | null>, text = 'Hei') {
  const channels = new Map<string, MixerChannel>();
  const rooms = new Map<string, LiveRoomRow>();
  const queued: unknown[] = [];
  const tx: MediaTx = {
    levelOn: async (_actor, id) => (id in levels ? { nodeKind: 'content', level: levels[id]! } : undefined),
    speechSource: async (id) => ({ id, title: null, content: text }),
    collectionMediaBytes: async () => 0,
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

  it('toggle an effect on and off, and refuse a new effect past the limit', async () => {
    const { store } = memoryStore({ [ROOM]: 'admin' });
    const effects = Object.fromEntries(Array.from({ length: MAX_EFFECTS }, (_, i) => [`e${i}`, false]));
    const channel = await createMixerChannel(store, PERSON, { room_id: ROOM, label: 'Vert', effects });
    expect((await changeMixerChannel(store, PERSON, channel.id, { op: 'toggle_effect', effect: 'e0' })).effects.e0).toBe(true);
    await expect(changeMixerChannel(store, PERSON, channel.id, { op: 'toggle_effect', effect: 'reverb' })).rejects.toMatchObject({
      code: 'invalid_input',
      detail: `effect: en kanal har høyst ${MAX_EFFECTS} effekter`,
    });
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
