import { statfs } from 'node:fs/promises';
import type { DiskProbe, DiskUsage } from '@inntak/jobs';
import { usableStorageDir } from './storage-dir.js';

/** The disk probe on the real filesystem. */
export class StatfsDiskProbe implements DiskProbe {
  async measure(path: string): Promise<DiskUsage> {
    // Not a recursive mkdir: under /proc it never returns (issue 22); a bad path fails naming STORAGE_DIR.
    usableStorageDir(path);
    const stats = await statfs(path);
    // bavail, not bfree: what unprivileged writers (us) can still use.
    return { totalBytes: stats.blocks * stats.bsize, freeBytes: stats.bavail * stats.bsize };
  }
}
