import { mkdir, statfs } from 'node:fs/promises';
import type { DiskProbe, DiskUsage } from '@inntak/jobs';

/** The disk probe on the real filesystem. */
export class StatfsDiskProbe implements DiskProbe {
  async measure(path: string): Promise<DiskUsage> {
    await mkdir(path, { recursive: true });
    const stats = await statfs(path);
    // bavail, not bfree: what unprivileged writers (us) can still use.
    return { totalBytes: stats.blocks * stats.bsize, freeBytes: stats.bavail * stats.bsize };
  }
}
