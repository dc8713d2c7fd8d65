import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '@inntak/core';
import type { Caller, IdentityDirectory } from '@inntak/access';
import { csrfMatches, resumeSession, type StudioReads, type StudioSessionStore } from '@inntak/studio';
import type { StudioView } from './studio-html.js';

/** The session cookie: a random token (packages/studio sessions.ts), HttpOnly, SameSite=Lax, only for /studio. */
export const SESSION_COOKIE = 'inntak_studio';
/** Binds a login under way to the browser that started it (login CSRF): the state, until the callback. */
export const LOGIN_COOKIE = 'inntak_studio_login';
/** Before there is a session, forms (the development login) carry this cookie's value back (double submit). */
export const PRE_COOKIE = 'inntak_studio_pre';

export interface CookieOptions {
  /** Secure off loopback: a BASE_URL on another host is served over https. */
  secure: boolean;
}

/** The Cookie header's pairs; a value that does not decode is left out (no library for ten lines). */
export function readCookies(req: Request): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    try {
      cookies[name] ??= decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      // A malformed value is no value.
    }
  }
  return cookies;
}

export function setCookie(res: Response, options: CookieOptions, name: string, value: string, maxAgeSeconds: number): void {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/studio', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (options.secure) parts.push('Secure');
  res.append('Set-Cookie', parts.join('; '));
}

export function clearCookie(res: Response, options: CookieOptions, name: string): void {
  setCookie(res, options, name, '', 0);
}

export interface StudioLocals {
  caller: Caller;
  /** Who is logged in, for the header: the person's name, or the login's subject when it has none. */
  name: string;
  csrf: string;
  token: string;
}

/**
 * Resolves the session cookie to a caller: the stored identity looked up again among the known
 * ones, as for /me, so a person removed since the login is logged out. Sets res.locals.studio,
 * or leaves it unset for a visitor without a (live) session.
 */
export function loadSession(deps: { sessions: StudioSessionStore; identities: IdentityDirectory; reads: Pick<StudioReads, 'personName'> }): RequestHandler {
  return (req, res, next) => {
    const token = readCookies(req)[SESSION_COOKIE];
    void (async () => {
      const session = await resumeSession(deps.sessions, token);
      if (!session) return;
      const caller = await deps.identities.findCaller(session.issuer, session.subject);
      if (!caller) return;
      const name = (await deps.reads.personName(caller.personId)) ?? session.subject;
      res.locals.studio = { caller, name, csrf: session.csrfToken, token: token! } satisfies StudioLocals;
    })().then(() => next(), next);
  };
}

export function studioOf(res: Response): StudioLocals | undefined {
  return res.locals.studio as StudioLocals | undefined;
}

/** The signed-in caller of a page behind the session check (requireStudioSession). */
export function studioCaller(res: Response): Caller {
  return studioOf(res)!.caller;
}

export function viewOf(res: Response): StudioView {
  const studio = studioOf(res);
  return studio ? { caller: studio.caller, name: studio.name, csrf: studio.csrf } : {};
}

/**
 * Pages need a session: a visitor without one is sent to the login page (GET) or answered 401
 * (anything else). A POST must carry the session's CSRF token in its `csrf` field, or 403.
 */
export function requireStudioSession(req: Request, res: Response, next: NextFunction): void {
  const studio = studioOf(res);
  if (!studio) {
    if (req.method === 'GET' || req.method === 'HEAD') {
      res.redirect(303, `/studio/login?neste=${encodeURIComponent(req.originalUrl)}`);
      return;
    }
    next(new AppError('missing_authorization'));
    return;
  }
  if (req.method === 'POST' && !csrfMatches(studio.csrf, (req.body as Record<string, unknown> | undefined)?.csrf)) {
    next(new AppError('forbidden', { detail: 'skjemaet mangler gyldig CSRF-token; last siden på nytt' }));
    return;
  }
  next();
}

/** Only a path inside the console may be where a login returns to (no open redirect). */
export function safeReturnPath(raw: unknown): string {
  return typeof raw === 'string' && /^\/studio(?:[/?#]|$)/.test(raw) && !raw.includes('\\') && !raw.startsWith('//') ? raw : '/studio';
}
