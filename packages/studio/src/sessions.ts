import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { StoredSession, StudioSessionStore } from './ports.js';

/** A new random token: 32 bytes, base64url (what the cookie and the forms carry). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the store keys a token by: its SHA-256, so a copy of the table opens no session. */
export function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Whether a form's CSRF field is the session's token (constant time; any other shape is false). */
export function csrfMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface StartedSession {
  /** For the cookie; never stored. */
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

/**
 * Log in: a new session for a verified identity. Rotation on login: the session the browser
 * came with (its old token, if any) is removed, so a token planted before the login (session
 * fixation) never becomes a logged-in one.
 */
export async function startSession(
  store: StudioSessionStore,
  identity: { issuer: string; subject: string },
  options: { ttlMs: number; now?: Date; previousToken?: string },
): Promise<StartedSession> {
  if (options.previousToken) await store.deleteSession(tokenHash(options.previousToken));
  const token = randomToken();
  const csrfToken = randomToken();
  const expiresAt = new Date((options.now ?? new Date()).getTime() + options.ttlMs);
  await store.insertSession(tokenHash(token), { ...identity, csrfToken, expiresAt });
  return { token, csrfToken, expiresAt };
}

/** The live session a cookie names; undefined for an unknown, malformed or expired one. */
export async function resumeSession(store: StudioSessionStore, token: string | undefined, now = new Date()): Promise<StoredSession | undefined> {
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  return store.findSession(tokenHash(token), now);
}

export async function endSession(store: StudioSessionStore, token: string | undefined): Promise<void> {
  if (token) await store.deleteSession(tokenHash(token));
}
