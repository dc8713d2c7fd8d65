import { AppError } from '@inntak/core';

/**
 * Who is calling: a person node, and whether that person is a system administrator
 * (`inntak person add --admin`), who may use every admin operation.
 */
export interface Caller {
  personId: string;
  isAdmin: boolean;
}

/**
 * Who performs a write: a caller, or the operator at a shell (`inntak` CLI), who acts as a
 * system administrator without a person node of their own.
 */
export interface Actor {
  personId: string | null;
  isAdmin: boolean;
}

export const OPERATOR: Actor = { personId: null, isAdmin: true };

/** The identity provider's port: checks a bearer token and says whose it is. */
export interface TokenVerifier {
  /** Resolves to the token's issuer, subject and expiry; rejects any token it does not accept. */
  verify(token: string): Promise<{ issuer: string; subject: string; expiresAt?: Date }>;
}

/** Looks a verified (issuer, subject) up among the known identities. */
export interface IdentityDirectory {
  findCaller(issuer: string, subject: string): Promise<Caller | undefined>;
}

/** A verified caller and when the token that proved it stops being valid. */
export interface Session {
  caller: Caller;
  expiresAt: Date | null;
}

/**
 * The one authentication path for REST and the WebSocket: header → token → verified subject →
 * person. Each failure has the spec's own answer.
 */
export async function authenticate(
  authorization: string | undefined,
  deps: { verifier: TokenVerifier; directory: IdentityDirectory },
): Promise<Caller> {
  return (await authenticateSession(authorization, deps)).caller;
}

/** `authenticate` for long-lived connections, which must end when the token expires. */
export async function authenticateSession(
  authorization: string | undefined,
  deps: { verifier: TokenVerifier; directory: IdentityDirectory },
): Promise<Session> {
  if (authorization === undefined || authorization.trim() === '') throw new AppError('missing_authorization');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw new AppError('invalid_token');
  let identity;
  try {
    identity = await deps.verifier.verify(match[1]!);
  } catch (cause) {
    throw new AppError('invalid_token', { cause });
  }
  const caller = await deps.directory.findCaller(identity.issuer, identity.subject);
  if (!caller) throw new AppError('unknown_identity');
  return { caller, expiresAt: identity.expiresAt ?? null };
}
