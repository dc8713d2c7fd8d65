import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { TokenVerifier } from '@inntak/access';
import type { Logger } from '@inntak/core';

/**
 * Asymmetric algorithms only: `none` and HS* are refused, so a public key can never be used as
 * an HMAC secret (key confusion).
 */
export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** Seconds of clock skew tolerated on exp and nbf. */
const CLOCK_TOLERANCE_S = 30;

/**
 * Verifies JWTs from an OpenID Connect issuer: discovery through openid-client (once, lazily,
 * retried after a failure), keys from its JWKS through jose (cached; an unknown `kid` triggers a
 * refetch), and signature, issuer, audience, exp/nbf and algorithm checked on every token.
 */
export class OidcTokenVerifier implements TokenVerifier {
  private keys: Promise<{ issuer: string; getKey: JWTVerifyGetKey }> | undefined;

  constructor(
    private readonly issuer: string,
    private readonly audience: string,
    private readonly logger: Logger,
  ) {}

  async verify(token: string): Promise<{ issuer: string; subject: string; expiresAt: Date }> {
    const { issuer, getKey } = await this.discover();
    const { payload } = await jwtVerify(token, getKey, {
      issuer,
      audience: this.audience,
      algorithms: ALLOWED_ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_S,
      requiredClaims: ['sub', 'exp'],
    });
    return { issuer, subject: payload.sub!, expiresAt: new Date(payload.exp! * 1000) };
  }

  /** Whether discovery (and so the JWKS address) succeeds within `timeoutMs`: for start-up and /health/ready. */
  async reachable(timeoutMs = 3000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    return Promise.race([this.discover().then(() => true, () => false), timeout]).finally(() => clearTimeout(timer));
  }

  private discover(): Promise<{ issuer: string; getKey: JWTVerifyGetKey }> {
    this.keys ??= (async () => {
      const url = new URL(this.issuer);
      // Plain http is allowed only for an issuer on this machine (development and tests).
      const execute = isLoopback(url) && url.protocol === 'http:' ? [oidc.allowInsecureRequests] : [];
      const config = await oidc.discovery(url, this.audience, undefined, undefined, { execute });
      const metadata = config.serverMetadata();
      if (!metadata.jwks_uri) throw new Error('the issuer publishes no jwks_uri');
      return { issuer: metadata.issuer, getKey: createRemoteJWKSet(new URL(metadata.jwks_uri)) };
    })().catch((err: unknown) => {
      this.keys = undefined;
      this.logger.error('OIDC discovery failed', { issuer: this.issuer, error: err instanceof Error ? err.message : String(err) });
      throw err;
    });
    return this.keys;
  }
}

/** Used when OIDC_ISSUER is not configured: the service runs, but no token is ever valid. */
export class NoIssuerVerifier implements TokenVerifier {
  verify(): Promise<never> {
    return Promise.reject(new Error('OIDC_ISSUER is not configured'));
  }
}

function isLoopback(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || url.hostname.startsWith('127.');
}
