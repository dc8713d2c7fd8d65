import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { underSharedKey, type SharedKey } from '@inntak/core';

/**
 * Read-your-writes across API processes for clients that keep cookies (issue 38): a write's
 * answer sets the primary's WAL position after it, signed under the key every process shares
 * (server_secrets `read_position`), for READ_AFTER_SECONDS. Any process then reads for that
 * browser from a replica that has replayed it, or from the primary, as for `Inntak-Read-After`.
 * The position is harmless to show (the header gives it already) and is capped at the primary's
 * own; the signature keeps a cookie from being the way to make reads wait for made-up positions.
 */
export const READ_AFTER_COOKIE = 'inntak_read_after';
/** Longer than a replica within the lag limit takes to replay a write; short enough to cost nothing later. */
const READ_AFTER_SECONDS = 60;
const VALUE = /^([0-9A-F]{1,8}\/[0-9A-F]{1,8})\.(\d{1,12})\.([A-Za-z0-9_-]{22})$/;

export async function positionCookie(key: SharedKey, lsn: string, secure: boolean): Promise<string> {
  const expires = Math.floor(Date.now() / 1000) + READ_AFTER_SECONDS;
  const value = `${lsn}.${expires}.${signature(await key.current(), lsn, expires)}`;
  return `${READ_AFTER_COOKIE}=${value}; Path=/; Max-Age=${READ_AFTER_SECONDS}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The position in the request's cookie when it is signed and not expired; else undefined. */
export async function positionOfCookie(key: SharedKey, req: Request): Promise<string | undefined> {
  const match = VALUE.exec(cookieOf(req.get('cookie') ?? '') ?? '');
  if (!match) return undefined;
  const [, lsn, expiresText, given] = match as unknown as [string, string, string, string];
  const expires = Number(expiresText);
  if (expires < Date.now() / 1000) return undefined;
  const givenBytes = Buffer.from(given);
  const valid = (k: Uint8Array) => {
    const expected = Buffer.from(signature(k, lsn, expires));
    return expected.length === givenBytes.length && timingSafeEqual(expected, givenBytes);
  };
  return (await underSharedKey(key, valid)) ? lsn : undefined;
}

function signature(key: Uint8Array, lsn: string, expires: number): string {
  return createHmac('sha256', key).update(`${lsn}\n${expires}`).digest('base64url').slice(0, 22);
}

function cookieOf(header: string): string | undefined {
  for (const part of header.slice(0, 4096).split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === READ_AFTER_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}
