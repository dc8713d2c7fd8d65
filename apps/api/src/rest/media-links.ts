import { createHmac, timingSafeEqual } from 'node:crypto';
import { processKey, underSharedKey, type SharedKey } from '@inntak/core';

/**
 * Signed, expiring links to GET /media/{id} (docs/media.md "Links a browser can play"): a browser's
 * <audio>, <img> or <video> cannot send a Bearer header, so the link carries
 * `expires=<unix s>&signature=<HMAC-SHA256 base64url over id and expires>` instead.
 */
export const MEDIA_LINK_DEFAULT_TTL_SECONDS = 3600;
export const MEDIA_LINK_MAX_TTL_SECONDS = 24 * 3600;

export interface MediaLinkSigner {
  /** `?expires=…&signature=…` for the media id, valid until `expires` (unix seconds). */
  query(id: string, expires: number): Promise<string>;
  /** Whether the signature is one an accepted key makes for id and expires (constant-time compare). */
  verify(id: string, expires: string, signature: string): Promise<boolean>;
}

/**
 * A signer over MEDIA_URL_SECRET when it is set, else over the key every API process shares
 * (server_secrets `media_link`, issue 38: a link one process made must open on every other, with
 * nothing to configure). Without either (a bare app), a key of this process.
 */
export function mediaLinkSigner(secret: string | undefined, shared: SharedKey = processKey()): MediaLinkSigner {
  // Kept in this closure only: never logged, never put in an error.
  const key: SharedKey = secret === undefined ? shared : fixedKey(Buffer.from(secret, 'utf8'));
  // The separator keeps "id|expires" unambiguous; ids are UUIDs and expires digits.
  const mac = (k: Uint8Array, id: string, expires: string) => createHmac('sha256', k).update(`${id}|${expires}`).digest();
  return {
    async query(id, expires) {
      return `?expires=${expires}&signature=${mac(await key.current(), id, String(expires)).toString('base64url')}`;
    },
    async verify(id, expires, signature) {
      if (!/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return false;
      const given = Buffer.from(signature, 'base64url');
      return underSharedKey(key, (k) => {
        const expected = mac(k, id, expires);
        return given.length === expected.length && timingSafeEqual(given, expected);
      });
    },
  };
}

function fixedKey(key: Uint8Array): SharedKey {
  return { current: () => Promise.resolve(key), accepted: () => Promise.resolve([key]) };
}
