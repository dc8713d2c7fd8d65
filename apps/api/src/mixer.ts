import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import {
  changeMixerChannel,
  createMixerChannel,
  EFFECT_NAME_PATTERN,
  GAIN_RANGE,
  MAX_EFFECTS,
  MAX_LABEL_CHARS,
  MIXER_ROLES,
  setLiveSession,
  type MediaStore,
} from '@inntak/media';
import type { RouteRegistry } from './route-registry.js';
import { Id, storableText, Timestamp } from './schemas.js';

const TAGS = ['mixer'];
const ERRORS = [400, 401, 403, 404];

const GainDb = z.number().min(GAIN_RANGE.min).max(GAIN_RANGE.max);
const Role = z.enum(MIXER_ROLES);
const EffectName = z.string().regex(EFFECT_NAME_PATTERN, 'forventet et effektnavn i snake_case');

export const MixerChannelSchema = z.object({
  id: Id,
  room_id: Id,
  node_id: Id.nullable(),
  label: z.string(),
  gain_db: z.number(),
  muted: z.boolean(),
  effects: z.record(z.string(), z.boolean()),
  role: Role,
  updated_at: Timestamp,
});

const LiveSessionSchema = z.object({
  room_id: Id,
  live: z.boolean(),
  started_at: Timestamp.nullable(),
  ended_at: Timestamp.nullable(),
  reprioritised: z.number().int().describe('queued jobs whose priority was recomputed'),
});

/**
 * The mixer operations and live sessions (docs/media.md), each checked against the room node
 * (docs/access.md, "Mixer"). Each answers the channel's new state; the change reaches every
 * client who may read the room as mixer_channel_changed on /ws.
 */
export function installMixer(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: { media: MediaStore }): void {
  const channelRoute = <B extends z.ZodObject>(path: string, summary: string, body: B, run: (body: z.infer<B>, caller: Parameters<typeof changeMixerChannel>[1]) => Promise<z.input<typeof MixerChannelSchema>>, status = 200) =>
    registry.route(
      app,
      { method: 'post', path, summary, tags: TAGS, auth: 'jwt', body, response: { status, schema: MixerChannelSchema }, errors: ERRORS },
      auth,
      ({ body: input, caller }) => run(input as z.infer<B>, caller),
    );

  channelRoute(
    '/intentions/create_mixer_channel',
    'Create a mixer channel in a room (admin on the room)',
    z.strictObject({
      room_id: Id,
      node_id: Id.optional(),
      label: storableText(z.string().trim().min(1).max(MAX_LABEL_CHARS)),
      gain_db: GainDb.optional(),
      muted: z.boolean().optional(),
      effects: z
        .record(EffectName, z.boolean())
        .refine((effects) => Object.keys(effects).length <= MAX_EFFECTS, `høyst ${MAX_EFFECTS} effekter`)
        .optional(),
      role: Role.optional(),
    }),
    (body, caller) => createMixerChannel(deps.media, caller, body),
    201,
  );
  channelRoute(
    '/intentions/set_gain',
    'Set a channel’s gain, -60 to +12 dB (member on the room)',
    z.strictObject({ channel_id: Id, gain_db: GainDb }),
    (body, caller) => changeMixerChannel(deps.media, caller, body.channel_id, { op: 'set_gain', gain_db: body.gain_db }),
  );
  channelRoute(
    '/intentions/set_mute',
    'Mute or unmute a channel (member on the room)',
    z.strictObject({ channel_id: Id, muted: z.boolean() }),
    (body, caller) => changeMixerChannel(deps.media, caller, body.channel_id, { op: 'set_mute', muted: body.muted }),
  );
  channelRoute(
    '/intentions/toggle_effect',
    'Turn one of a channel’s effects on or off (member on the room); an unknown effect starts off, so it turns on',
    z.strictObject({ channel_id: Id, effect: EffectName }),
    (body, caller) => changeMixerChannel(deps.media, caller, body.channel_id, { op: 'toggle_effect', effect: body.effect }),
  );
  channelRoute(
    '/intentions/set_mixer_role',
    'Set a channel’s role (admin on the room)',
    z.strictObject({ channel_id: Id, role: Role }),
    (body, caller) => changeMixerChannel(deps.media, caller, body.channel_id, { op: 'set_mixer_role', role: body.role }),
  );

  for (const [path, live] of [
    ['/intentions/start_live_session', true],
    ['/intentions/end_live_session', false],
  ] as const) {
    registry.route(
      app,
      {
        method: 'post',
        path,
        summary: live
          ? 'Start a live session in a room (admin on the room); queued jobs are re-prioritised by the live-room rules'
          : 'End a room’s live session (admin on the room); queued jobs get their normal priority back',
        tags: TAGS,
        auth: 'jwt',
        body: z.strictObject({ room_id: Id }),
        response: { status: 200, schema: LiveSessionSchema },
        errors: live ? ERRORS : [...ERRORS, 409],
      },
      auth,
      ({ body, caller }) => setLiveSession(deps.media, caller, body.room_id, live),
    );
  }
}
