import { randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';

/**
 * The development issuer has no server: its one ES256 key lives in a file in the data directory
 * (mode 0600), `inntak token` signs with it and the API verifies with it. Its `iss` is a URN, so
 * it can never be mistaken for a real issuer's URL.
 */
export const DEV_ISSUER = 'urn:inntak:dev-issuer';
export const DEV_AUDIENCE = 'inntak-dev';
const KEY_FILE = 'dev-issuer-key.json';
const ALG = 'ES256';

export interface DevIssuer {
  /** A token for `subject`, valid for `minutes`. */
  sign(subject: string, minutes: number): Promise<string>;
  /** Whether a token claims to come from this issuer (unverified: only to pick the verifier). */
  claims(token: string): boolean;
  verify(token: string): Promise<{ issuer: string; subject: string; expiresAt: Date }>;
}

export async function openDevIssuer(dataDir: string): Promise<DevIssuer> {
  const jwk = await readOrCreateKey(dataDir);
  const privateKey = await importJWK(jwk, ALG);
  const { d: _private, ...publicJwk } = jwk;
  const publicKey = await importJWK(publicJwk, ALG);
  return {
    sign: (subject, minutes) =>
      new SignJWT({})
        .setProtectedHeader({ alg: ALG, typ: 'JWT' })
        .setIssuer(DEV_ISSUER)
        .setAudience(DEV_AUDIENCE)
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime(`${minutes}m`)
        .sign(privateKey),
    claims(token) {
      try {
        return decodeJwt(token).iss === DEV_ISSUER;
      } catch {
        return false;
      }
    },
    async verify(token) {
      const { payload } = await jwtVerify(token, publicKey, { issuer: DEV_ISSUER, audience: DEV_AUDIENCE, algorithms: [ALG], requiredClaims: ['sub', 'exp'] });
      return { issuer: DEV_ISSUER, subject: payload.sub!, expiresAt: new Date(payload.exp! * 1000) };
    },
  };
}

/**
 * The CLI and the API may both be first to need the key: each writes a candidate to a file of its
 * own and links it into place, which fails if the other won, so both end up reading one key.
 */
async function readOrCreateKey(dataDir: string): Promise<JWK> {
  const path = join(dataDir, KEY_FILE);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as JWK;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const { privateKey } = await generateKeyPair(ALG, { extractable: true });
  const candidate = join(dataDir, `${KEY_FILE}.${randomUUID()}`);
  writeFileSync(candidate, JSON.stringify(await exportJWK(privateKey)), { mode: 0o600 });
  try {
    linkSync(candidate, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(candidate, { force: true });
  }
  return JSON.parse(readFileSync(path, 'utf8')) as JWK;
}
