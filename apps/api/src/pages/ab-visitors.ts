import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { processKey, underSharedKey, type SharedKey } from '@inntak/core';
import { networkPrefix } from './public-clients.js';

/** The first-party cookie that keeps a visitor's variants (docs/publishing.md "One variant per visitor"). */
export const VISITOR_COOKIE = 'inntak_ab';
/** How long a visitor keeps their variants: longer than a test runs. */
const VISITOR_MAX_AGE_S = 90 * 24 * 3600;
/** `<id>.<signature>`: a random id and the server's HMAC over it and the client it was made for. */
const COOKIE_VALUE = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;

/**
 * The visitor ids that pick the variants a reader sees (issue 24), made and signed by the server
 * (issue 35, finding 7). The id decides the variant, and a reader's first counted view counts the
 * variant shown: a cookie the client could choose, or carry from one client to another, let a
 * few addresses show every counted reader variant A and push a test into sample-ratio mismatch.
 * So the id is accepted only with its HMAC-SHA256 over the id, the network (an IPv6 /48, IPv4 the
 * address) and the User-Agent it was made for, under a key shared by every API process
 * (`server_secrets.ab_visitor`); anything else — no cookie, a made-up or altered one, one made
 * for another client — gets a fresh random id. A reader whose network or browser changes gets new
 * variants; they count as a new reader anyway (AbClientGate counts by address and User-Agent).
 */
export class VisitorCookies {
  constructor(private readonly key: SharedKey = processKey()) {}

  /** The visitor's id from the cookie, or a new one set in it (this host and the publication's path only, HttpOnly, SameSite=Lax). */
  async visitorOf(req: Request, res: Response, base: string): Promise<string> {
    const client = `${networkPrefix(req.ip ?? req.socket.remoteAddress ?? '')}\n${(req.get('user-agent') ?? '').slice(0, 512)}`;
    const match = COOKIE_VALUE.exec(cookieOf(req.get('cookie') ?? '') ?? '');
    if (match) {
      const given = Buffer.from(match[2]!);
      const valid = (key: Uint8Array) => {
        const expected = Buffer.from(signature(key, match[1]!, client));
        return given.length === expected.length && timingSafeEqual(given, expected);
      };
      // Under the previous key too, for the overlap after a rotation (`inntak secrets rotate ab_visitor`).
      if (await underSharedKey(this.key, valid)) return match[1]!;
    }
    const id = randomBytes(16).toString('base64url');
    res.append('Set-Cookie', `${VISITOR_COOKIE}=${id}.${signature(await this.key.current(), id, client)}; Path=${base || '/'}; Max-Age=${VISITOR_MAX_AGE_S}; HttpOnly; SameSite=Lax${req.secure ? '; Secure' : ''}`);
    return id;
  }
}

function cookieOf(header: string): string | undefined {
  for (const part of header.slice(0, 4096).split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === VISITOR_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function signature(key: Uint8Array, id: string, client: string): string {
  return createHmac('sha256', key).update(`${id}\n${client}`).digest('base64url').slice(0, 22);
}
