import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from 'jose';

export interface TestIssuer {
  issuer: string;
  audience: string;
  /** A valid RS256 token for `subject`; claims and header may be overridden to make bad ones. */
  token(subject: string, options?: { claims?: JWTPayload; expiresIn?: string; notBefore?: string; kid?: string; key?: CryptoKey }): Promise<string>;
  /** The issuer's public key as a JWK (for key-confusion attacks). */
  publicJwk: JWK;
  close(): Promise<void>;
}

/**
 * A real OpenID issuer on 127.0.0.1: a discovery document and a JWKS served over HTTP, and
 * tokens signed with its RSA key. The API discovers and verifies against it like any issuer.
 */
export async function startTestIssuer(audience = 'inntak-test'): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  let issuer = '';
  const server: Server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      res.end(
        JSON.stringify({
          issuer,
          jwks_uri: `${issuer}/jwks`,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
        }),
      );
    } else if (req.url === '/jwks') {
      res.end(JSON.stringify({ keys: [publicJwk] }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    audience,
    publicJwk,
    async token(subject, options = {}) {
      const jwt = new SignJWT({ ...options.claims })
        .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? 'test-key-1', typ: 'JWT' })
        .setSubject(subject)
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '5m');
      if (options.notBefore) jwt.setNotBefore(options.notBefore);
      if (options.claims?.iss) jwt.setIssuer(options.claims.iss);
      if (options.claims?.aud) jwt.setAudience(options.claims.aud);
      return jwt.sign(options.key ?? privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
