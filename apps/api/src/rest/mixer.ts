import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import {
  changeMixerChannel,
  createMixerChannel,
  EFFECT_NAMES,
  EFFECTS,
  GAIN_RANGE,
  MAX_LABEL_CHARS,
  MIX_TARGET_LUFS,
  MIXER_ROLES,
  OFFSET_RANGE_MS,
  queueMixdown,
  setLiveSession,
  type MediaStore,
  type MixerChange,
} from '@inntak/media';
import type { RouteRegistry } from '../route-registry.js';
import { Id, storableText, Timestamp } from '../schemas.js';

const TAGS = ['mixer'];
const ERRORS = [400, 401, 403, 404];

const GainDb = z.number().min(GAIN_RANGE.min).max(GAIN_RANGE.max);
const Role = z.enum(MIXER_ROLES);
const EffectName = z.enum(EFFECT_NAMES as [string, ...string[]]);
const OffsetMs = z.number().int().min(OFFSET_RANGE_MS.min).max(OFFSET_RANGE_MS.max);

/** What a channel change carries besides its op. */
type ChangeFields<Op extends MixerChange['op']> = Omit<Extract<MixerChange, { op: Op }>, 'op'>;

/** One effect's settings as the caller sends them: any of its parameters, each in its range (mix-effects.ts). */
function effectInput(params: Record<string, { min: number; max: number; default: number }>, partial: boolean) {
  const shape = Object.fromEntries(
    Object.entries(params).map(([name, range]) => {
      const field = z.number().min(range.min).max(range.max).describe(`${range.min} … ${range.max}, default ${range.default}`);
      return [name, partial ? field.optional() : field];
    }),
  );
  return z.strictObject({ enabled: partial ? z.boolean().optional() : z.boolean(), ...shape });
}
const effectsObject = (partial: boolean) =>
  z.strictObject(Object.fromEntries(Object.entries(EFFECTS).map(([name, spec]) => [name, effectInput(spec.params, partial).describe(spec.summary).optional()])));

export const MixerChannelSchema = z.object({
  id: Id,
  room_id: Id,
  node_id: Id.nullable().describe('the source: an audio media node'),
  label: z.string(),
  gain_db: z.number(),
  muted: z.boolean(),
  effects: effectsObject(false),
  offset_ms: z.number().int().describe('where the source starts in the mix'),
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
      room_id: Id.describe('a communication node'),
      node_id: Id.optional().describe('the source: an audio media node the caller may read'),
      label: storableText(z.string().trim().min(1).max(MAX_LABEL_CHARS)),
      gain_db: GainDb.optional(),
      muted: z.boolean().optional(),
      effects: effectsObject(true).optional(),
      offset_ms: OffsetMs.optional(),
      role: Role.optional(),
    }),
    (body, caller) => createMixerChannel(deps.media, caller, body),
    201,
  );
  /** One change of a channel: POST /intentions/<op> with channel_id and the change's fields, zod-checked to fit the MixerChange of that op. */
  const changeRoute = <Op extends MixerChange['op']>(op: Op, summary: string, fields: { [K in keyof ChangeFields<Op>]-?: z.ZodType<ChangeFields<Op>[K]> }) =>
    channelRoute(`/intentions/${op}`, summary, z.strictObject({ channel_id: Id, ...fields }), (body, caller) => {
      // `fields` is typed against the op's MixerChange, so the checked body is that change and channel_id.
      const { channel_id, ...change } = body as { channel_id: string } & Record<string, unknown>;
      return changeMixerChannel(deps.media, caller, channel_id, { op, ...change } as MixerChange);
    });

  changeRoute('set_gain', 'Set a channel’s gain, -60 to +12 dB (member on the room)', { gain_db: GainDb });
  changeRoute('set_mute', 'Mute or unmute a channel (member on the room)', { muted: z.boolean() });
  changeRoute(
    'toggle_effect',
    'Turn one of a channel’s effects on or off (member on the room); an effect the channel does not have starts off with its defaults, so it turns on',
    { effect: EffectName },
  );
  changeRoute(
    'set_effect',
    'Set an effect’s parameters and/or enabled (member on the room); parameters not given keep their value (or default)',
    { effect: EffectName, settings: z.record(z.string(), z.union([z.number(), z.boolean()])) },
  );
  changeRoute('set_channel_offset', 'Set where a channel’s source starts in the mix, 0 to 3 600 000 ms (member on the room)', { offset_ms: OffsetMs });
  changeRoute('set_channel_source', 'Set a channel’s source: an audio media node the caller may read, or null (member on the room)', { node_id: Id.nullable() });
  changeRoute('set_mixer_role', 'Set a channel’s role (admin on the room)', { role: Role });

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/render_mix',
      summary: 'Queue a render_mix job mixing the room’s channels into a new audio media node of the room (member on the room)',
      description:
        'Every unmuted channel with a source, with its gain, effects and offset, normalised to target_lufs (default −16) with no sample above −1 dBFS. ' +
        'The mix is an audio/wav media node the room has through has_media; clients who may read the room see it on /ws.',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ room_id: Id, target_lufs: z.number().min(MIX_TARGET_LUFS.min).max(MIX_TARGET_LUFS.max).optional() }),
      response: { status: 202, schema: z.object({ job_id: z.number().int() }) },
      errors: ERRORS,
    },
    auth,
    async ({ body, caller }) => ({ job_id: await queueMixdown(deps.media, caller, body) }),
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
