import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signed, expiring links to GET /media/{id} (docs/media.md "Links a browser can play"): a browser's
 * <audio>, <img> or <video> cannot send a Bearer header, so the link carries
 * `expires=<unix s>&signature=<HMAC-SHA256 base64url over id and expires>` instead.
 */
export const MEDIA_LINK_DEFAULT_TTL_SECONDS = 3600;
export const MEDIA_LINK_MAX_TTL_SECONDS = 24 * 3600;

/**
 * Without MEDIA_URL_SECRET a random key per process: links then work only on the process that made
 * them (and until it restarts). Made once here so every app of a process agrees.
 */
const PROCESS_KEY = randomBytes(32);

export interface MediaLinkSigner {
  /** `?expires=…&signature=…` for the media id, valid until `expires` (unix seconds). */
  query(id: string, expires: number): string;
  /** Whether the signature is the one this key makes for id and expires (constant-time compare). */
  verify(id: string, expires: string, signature: string): boolean;
}

/** A signer over MEDIA_URL_SECRET, or over the process's random key when it is absent. */
export function mediaLinkSigner(secret: string | undefined): MediaLinkSigner {
  // Kept in this closure only: never logged, never put in an error.
  const key = secret === undefined ? PROCESS_KEY : Buffer.from(secret, 'utf8');
  // The separator keeps "id|expires" unambiguous; ids are UUIDs and expires digits.
  const mac = (id: string, expires: string) => createHmac('sha256', key).update(`${id}|${expires}`).digest();
  return {
    query(id, expires) {
      return `?expires=${expires}&signature=${mac(id, String(expires)).toString('base64url')}`;
    },
    verify(id, expires, signature) {
      if (!/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return false;
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(id, expires);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
