import { randomBytes } from 'node:crypto';

/**
 * A key every process of a fleet signs and checks with (issue 38): kept in the database
 * (`server_secrets`), cached in the process. After a rotation the previous key is still
 * accepted for an overlap, so what one process signed just before is not refused by another.
 */
export interface SharedKey {
  /** The key to sign with now. */
  current(): Promise<Uint8Array>;
  /**
   * Keys a signature may be under, the current one first. `fresh` re-reads the database (at
   * most every 100 ms or so): a signature under none of the cached keys may be under a key
   * another process has just rotated to.
   */
  accepted(fresh?: boolean): Promise<Uint8Array[]>;
}

/** A key made now and known to this process only: for a bare app or a unit test, never for a fleet. */
export function processKey(): SharedKey {
  const key = randomBytes(32);
  return { current: () => Promise.resolve(key), accepted: () => Promise.resolve([key]) };
}

/** Whether `check(key)` holds for one of the accepted keys, asking the database again once when none does. */
export async function underSharedKey(key: SharedKey, check: (key: Uint8Array) => boolean): Promise<boolean> {
  if ((await key.accepted()).some(check)) return true;
  return (await key.accepted(true)).some(check);
}
