import { defaultRule, type GovernorLimits, type JobRule, type RunningJob } from './types.js';

export interface GovernorView {
  rules: ReadonlyMap<string, JobRule>;
  running: readonly RunningJob[];
  liveRoomActive: boolean;
  limits: GovernorLimits;
}

export type Admission = { admitted: true } | { admitted: false; reason: string };

export function ruleFor(rules: ReadonlyMap<string, JobRule>, jobType: string): JobRule {
  return rules.get(jobType) ?? defaultRule(jobType);
}

/** Whether one more job of this type may start now without breaking a limit. */
export function admit(jobType: string, view: GovernorView): Admission {
  const rule = ruleFor(view.rules, jobType);
  if (rule.blockDuringLivekit && view.liveRoomActive) return { admitted: false, reason: 'blocked while a live room is active' };
  if (view.running.length >= view.limits.maxRunning) {
    return { admitted: false, reason: `${view.running.length} jobs running (limit ${view.limits.maxRunning})` };
  }
  const weight = view.running.reduce((sum, job) => sum + job.cpuWeight, 0);
  if (weight + rule.cpuWeight > view.limits.maxWeight) {
    return { admitted: false, reason: `CPU weight ${weight} + ${rule.cpuWeight} over limit ${view.limits.maxWeight}` };
  }
  const sameType = view.running.filter((job) => job.jobType === jobType).length;
  if (sameType >= rule.maxConcurrent) {
    return { admitted: false, reason: `${sameType} ${jobType} jobs running (max_concurrent ${rule.maxConcurrent})` };
  }
  return { admitted: true };
}

/**
 * The job types a worker must not fetch right now (graphile-worker's forbiddenFlags; every job
 * carries its type as its flag). `knownTypes` adds types that have no rule row.
 */
export function forbiddenTypes(view: GovernorView, knownTypes: Iterable<string> = []): string[] {
  const types = new Set<string>([...view.rules.keys(), ...knownTypes]);
  return [...types].filter((type) => !admit(type, view).admitted).sort();
}

/** Priority at enqueue time: a live room ranks the type later by its adjustment. */
export function effectivePriority(rule: JobRule, liveRoomActive: boolean): number {
  return rule.basePriority + (liveRoomActive ? rule.livekitPriorityAdj : 0);
}

/** Who may change a rule, and to what: sane bounds, so a typo cannot stall every worker. */
export function validateRule(rule: JobRule, limits: GovernorLimits): string | undefined {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(rule.jobType)) return 'job_type: må være snake_case';
  if (!Number.isInteger(rule.basePriority) || Math.abs(rule.basePriority) > 32767) return 'base_priority: må være et heltall fra -32767 til 32767';
  if (!Number.isInteger(rule.livekitPriorityAdj) || Math.abs(rule.livekitPriorityAdj) > 32767) return 'livekit_priority_adj: må være et heltall fra -32767 til 32767';
  if (!Number.isInteger(rule.cpuWeight) || rule.cpuWeight < 0 || rule.cpuWeight > limits.maxWeight) {
    return `cpu_weight: må være et heltall fra 0 til ${limits.maxWeight}`;
  }
  if (!Number.isInteger(rule.maxConcurrent) || rule.maxConcurrent < 0 || rule.maxConcurrent > limits.maxRunning) {
    return `max_concurrent: må være et heltall fra 0 til ${limits.maxRunning}`;
  }
  if (!Number.isInteger(rule.timeoutSeconds) || rule.timeoutSeconds < 1 || rule.timeoutSeconds > 86400) {
    return 'timeout: må være et helt antall sekunder fra 1 til 86400';
  }
  return undefined;
}
