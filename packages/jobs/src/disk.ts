/** Spec, Limits: 85 % warning, 90 % critical, 95 % emergency. */
export const DISK_LEVELS = ['ok', 'warning', 'critical', 'emergency'] as const;
export type DiskLevel = (typeof DISK_LEVELS)[number];

export const DISK_THRESHOLDS = { warning: 85, critical: 90, emergency: 95 } as const;

export interface DiskUsage {
  totalBytes: number;
  freeBytes: number;
}

/** The disk probe port: the filesystem holding a directory (fs.statfs in production). */
export interface DiskProbe {
  measure(path: string): Promise<DiskUsage>;
}

export function usedPercent(usage: DiskUsage): number {
  if (usage.totalBytes <= 0) return 0;
  return Math.round(((usage.totalBytes - usage.freeBytes) / usage.totalBytes) * 10000) / 100;
}

export function classifyDisk(percent: number): DiskLevel {
  if (percent >= DISK_THRESHOLDS.emergency) return 'emergency';
  if (percent >= DISK_THRESHOLDS.critical) return 'critical';
  if (percent >= DISK_THRESHOLDS.warning) return 'warning';
  return 'ok';
}

/** One disk measurement of the disk monitor's log. */
export interface DiskMeasurementRecord {
  measured_at: Date;
  path: string;
  total_bytes: number;
  free_bytes: number;
  used_percent: number;
  level: DiskLevel;
}
