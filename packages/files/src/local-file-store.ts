import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { FileStore, StoredFile } from '@inntak/media';

const TEMP_DIR = '.tmp';

/** A file that does not fit, told like the write that fails for it (placeMediaFile maps ENOSPC to storage_full). */
function noSpace(free: number, needed: number): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: STORAGE_DIR has ${free} bytes free, the file needs ${needed}`), { code: 'ENOSPC' });
}

/**
 * The file store on a local directory (STORAGE_DIR). Temporary files live in its `.tmp/`
 * subdirectory, on the same filesystem, so committing is one atomic rename. A temporary name is
 * `<key>.<random>`, so the sweep can tell which key it was written for.
 */
export class LocalFileStore implements FileStore {
  constructor(readonly dir: string) {}

  private path(key: string): string {
    // Keys come from fileKeyOf (uuid.ext); anything else never reaches the filesystem.
    if (!/^[0-9a-f-]{36}\.[a-z0-9]{1,8}$/.test(key)) throw new Error(`not a file key: ${key}`);
    return join(this.dir, key);
  }

  private tempPath(tempName: string): string {
    if (!/^[0-9a-f-]{36}\.[a-z0-9]{1,8}\.[0-9a-f]{16}$/.test(tempName)) throw new Error(`not a temporary name: ${tempName}`);
    return join(this.dir, TEMP_DIR, tempName);
  }

  /**
   * A file that cannot fit is refused before a byte is written, and one that fails part-way (the
   * disk filled meanwhile) is removed at once (issue 38: a 4 MB partial file and empty ones stayed
   * in `.tmp/` for an hour): both fail with ENOSPC, which the media use cases answer as
   * `storage_full` (507).
   */
  async writeTemp(key: string, bytes: Uint8Array): Promise<string> {
    this.path(key);
    await mkdir(join(this.dir, TEMP_DIR), { recursive: true });
    const free = await statfs(this.dir).then((s) => s.bavail * s.bsize, () => Infinity);
    if (free < bytes.length) throw noSpace(free, bytes.length);
    const tempName = `${key}.${randomBytes(8).toString('hex')}`;
    const path = this.tempPath(tempName);
    try {
      await writeFile(path, bytes, { flag: 'wx' });
    } catch (err) {
      await rm(path, { force: true });
      throw err;
    }
    return tempName;
  }

  async commit(tempName: string, key: string): Promise<void> {
    await rename(this.tempPath(tempName), this.path(key));
  }

  async discard(tempName: string): Promise<void> {
    await rm(this.tempPath(tempName), { force: true });
  }

  async remove(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async size(key: string): Promise<number | null> {
    try {
      const stats = await stat(this.path(key));
      return stats.isFile() ? stats.size : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.path(key), range);
  }

  async list(): Promise<StoredFile[]> {
    const files: StoredFile[] = [];
    const entries = async (dir: string) => {
      try {
        return await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
    };
    for (const entry of await entries(this.dir)) {
      if (!entry.isFile() || !/^[0-9a-f-]{36}\.[a-z0-9]{1,8}$/.test(entry.name)) continue;
      const stats = await stat(join(this.dir, entry.name)).catch(() => null);
      if (stats) files.push({ key: entry.name, bytes: stats.size, modifiedAt: stats.mtime });
    }
    for (const entry of await entries(join(this.dir, TEMP_DIR))) {
      const match = /^([0-9a-f-]{36}\.[a-z0-9]{1,8})\.[0-9a-f]{16}$/.exec(entry.name);
      if (!entry.isFile() || !match) continue;
      const stats = await stat(join(this.dir, TEMP_DIR, entry.name)).catch(() => null);
      if (stats) files.push({ key: match[1]!, tempName: entry.name, bytes: stats.size, modifiedAt: stats.mtime });
    }
    return files;
  }
}
