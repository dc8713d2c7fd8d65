import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';

/**
 * STORAGE_DIR is usable: a directory this user can create (here, now) and write. Checked by the
 * API's, the worker's and so `inntak start`'s config at start-up, so a bad path ends the process
 * with one line naming the variable instead of failing (or spinning) later. Returns the absolute path.
 */
export function usableStorageDir(dir: string): string {
  if (dir.trim() === '' || /[\0\n\r]/.test(dir)) throw new Error(`STORAGE_DIR must be a directory path; got ${JSON.stringify(dir)}`);
  const absolute = resolve(dir);
  try {
    makeDirectory(absolute);
    if (!statSync(absolute).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    accessSync(absolute, constants.W_OK | constants.X_OK);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(`STORAGE_DIR must be a directory this user can create and write; ${absolute}: ${reason}`, { cause: err });
  }
  return absolute;
}

/** mkdir -p one level at a time: Node's recursive mkdir never returns for a path under /proc (it spins). */
function makeDirectory(dir: string): void {
  const parts = dir.split(sep);
  for (let i = 2; i <= parts.length; i++) {
    const path = parts.slice(0, i).join(sep) || sep;
    if (!existsSync(path)) mkdirSync(path);
  }
}
