import { describe, expect, it } from '@jest/globals';
import { PermanentJobError } from './errors.js';
import { parseJobPayload } from './payloads.js';

const ID = '00000000-0000-4000-8000-000000000000';

describe('parseJobPayload', () => {
  it('returns a good payload, without keys its schema does not know (a crontab job carries _cron)', () => {
    expect(parseJobPayload('access_repair', { edge_id: ID, _cron: { ts: 'x' } })).toEqual({ edge_id: ID });
    expect(parseJobPayload('prune', null)).toEqual({});
  });

  it('refuses a bad one with a permanent error naming the job type and the field', () => {
    expect(() => parseJobPayload('access_repair', { edge_id: 42 })).toThrow(PermanentJobError);
    expect(() => parseJobPayload('access_repair', {})).toThrow(/^invalid access_repair payload: edge_id: /);
    expect(() => parseJobPayload('tts_generate', { node_id: 'n' })).toThrow('invalid tts_generate payload: node_id: expected a UUID');
    expect(() => parseJobPayload('orchestrate', { orchestration_id: ID, event: { type: 'node.deleted', id: ID, depth: 0 } })).toThrow(/^invalid orchestrate payload: event\.type: /);
  });

  it('a tts_generate job an orchestration queued carries its cascade {depth, root, budget}; a bad one fails naming the field (second attack on issue 22)', () => {
    const cascade = { depth: 2, root: ID, budget: 100 };
    expect(parseJobPayload('tts_generate', { node_id: ID, requested_by: ID, cascade })).toEqual({ node_id: ID, requested_by: ID, cascade });
    expect(() => parseJobPayload('tts_generate', { node_id: ID, cascade: { ...cascade, depth: -1 } })).toThrow(/^invalid tts_generate payload: cascade\.depth: /);
    expect(() => parseJobPayload('tts_generate', { node_id: ID, cascade: { ...cascade, root: 'x' } })).toThrow('invalid tts_generate payload: cascade.root: expected a UUID');
    expect(() => parseJobPayload('tts_generate', { node_id: ID, cascade: { ...cascade, budget: 0 } })).toThrow(/^invalid tts_generate payload: cascade\.budget: /);
  });

  it('render_mix takes a room and a target loudness in −36 … −6 LUFS; speech_transcription a media id', () => {
    expect(parseJobPayload('render_mix', { room_id: ID, target_lufs: -16 })).toEqual({ room_id: ID, target_lufs: -16 });
    expect(() => parseJobPayload('render_mix', { room_id: ID, target_lufs: 0 })).toThrow(/^invalid render_mix payload: target_lufs: /);
    expect(() => parseJobPayload('render_mix', {})).toThrow(/^invalid render_mix payload: room_id: /);
    expect(parseJobPayload('speech_transcription', { media_id: ID })).toEqual({ media_id: ID });
    expect(() => parseJobPayload('speech_transcription', { media_id: 'x' })).toThrow('invalid speech_transcription payload: media_id: expected a UUID');
  });

  it('takes any object for a job type without a schema, and nothing else', () => {
    expect(parseJobPayload('sleep_light', { ms: 5 })).toEqual({ ms: 5 });
    expect(() => parseJobPayload('sleep_light', [1])).toThrow(/^invalid sleep_light payload: \(payload\): /);
  });
});
