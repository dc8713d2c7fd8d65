import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { admit, effectivePriority, forbiddenTypes, validateRule } from './governor.js';
import { DEFAULT_LIMITS, defaultRule, type JobRule, type RunningJob } from './types.js';

function rule(jobType: string, overrides: Partial<JobRule> = {}): JobRule {
  return { ...defaultRule(jobType), ...overrides };
}

const rules = new Map<string, JobRule>([
  ['speech_transcription', rule('speech_transcription', { cpuWeight: 5, maxConcurrent: 1, blockDuringLivekit: true })],
  ['rendering', rule('rendering', { cpuWeight: 1, maxConcurrent: 2, livekitPriorityAdj: 10 })],
  ['tts_generate', rule('tts_generate', { cpuWeight: 2, maxConcurrent: 2 })],
]);

function view(running: RunningJob[], liveRoomActive = false) {
  return { rules, running, liveRoomActive, limits: DEFAULT_LIMITS };
}
const job = (jobType: string): RunningJob => ({ jobType, cpuWeight: rules.get(jobType)?.cpuWeight ?? 1 });

describe('governor', () => {
  it('admits a job when nothing runs', () => {
    expect(admit('speech_transcription', view([]))).toEqual({ admitted: true });
  });

  it('never lets a fourth job start', () => {
    const decision = admit('rendering', view([job('tts_generate'), job('rendering'), job('access_repair')]));
    expect(decision.admitted).toBe(false);
    expect(forbiddenTypes(view([job('tts_generate'), job('rendering'), job('access_repair')]), ['access_repair'])).toEqual([
      'access_repair',
      'rendering',
      'speech_transcription',
      'tts_generate',
    ]);
  });

  it('keeps the total CPU weight at most 8', () => {
    // 5 + 2 = 7 running: a weight-1 job fits, another weight-2 job does not.
    const running = [job('speech_transcription'), job('tts_generate')];
    expect(admit('rendering', view(running)).admitted).toBe(true);
    expect(admit('tts_generate', view(running))).toEqual({ admitted: false, reason: 'CPU weight 7 + 2 over limit 8' });
  });

  it('holds per-type max_concurrent', () => {
    expect(admit('speech_transcription', view([job('speech_transcription')])).admitted).toBe(false);
    expect(forbiddenTypes(view([job('rendering'), job('rendering')]))).toContain('rendering');
  });

  it('postpones a block_during_livekit type while a live room is active', () => {
    expect(admit('speech_transcription', view([], true))).toEqual({ admitted: false, reason: 'blocked while a live room is active' });
    expect(forbiddenTypes(view([], true))).toEqual(['speech_transcription']);
  });

  it('ranks a type later by livekit_priority_adj while a live room is active', () => {
    const rendering = rules.get('rendering')!;
    expect(effectivePriority(rendering, false)).toBe(0);
    expect(effectivePriority(rendering, true)).toBe(10);
  });

  it('governs a type without a rule by the default rule (weight 1)', () => {
    expect(admit('unknown_type', view([job('speech_transcription'), job('tts_generate')])).admitted).toBe(true);
  });

  it('any sequence of admitted starts stays within every limit', () => {
    const types = ['speech_transcription', 'rendering', 'tts_generate', 'access_repair'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...types), { maxLength: 30 }), (wanted) => {
        const running: RunningJob[] = [];
        for (const type of wanted) if (admit(type, view(running)).admitted) running.push(job(type));
        const weight = running.reduce((sum, j) => sum + j.cpuWeight, 0);
        expect(running.length).toBeLessThanOrEqual(3);
        expect(weight).toBeLessThanOrEqual(8);
        for (const [type, r] of rules) expect(running.filter((j) => j.jobType === type).length).toBeLessThanOrEqual(r.maxConcurrent);
      }),
    );
  });

  it('rejects a rule that would break the limits', () => {
    expect(validateRule(rule('rendering', { cpuWeight: 9 }), DEFAULT_LIMITS)).toBe('cpu_weight: må være et heltall fra 0 til 8');
    expect(validateRule(rule('rendering', { timeoutSeconds: 0 }), DEFAULT_LIMITS)).toMatch(/^timeout/);
    expect(validateRule(rule('rendering'), DEFAULT_LIMITS)).toBeUndefined();
  });
});
