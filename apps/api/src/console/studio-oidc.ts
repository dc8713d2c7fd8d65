import * as oidc from 'openid-client';
import type { Logger } from '@inntak/core';

/**
 * The console's OpenID Connect client: authorization code with PKCE (S256), state and nonce,
 * through openid-client. Discovery happens once, lazily, and is retried after a failure.
 */
export interface StudioLoginProvider {
  /** Where to send the browser, for a fresh state, nonce and PKCE verifier. */
  authorizationUrl(login: { state: string; nonce: string; codeVerifier: string }): Promise<URL>;
  /**
   * The callback: exchanges the code (checking state, nonce, PKCE and the ID token) and answers
   * the identity it proves. Rejects anything else.
   */
  identity(callbackUrl: URL, login: { state: string; nonce: string; codeVerifier: string }): Promise<{ issuer: string; subject: string }>;
}

export interface StudioOidcOptions {
  issuer: string;
  clientId: string;
  /** Absent: a public client (token endpoint auth `none`; PKCE carries the proof). */
  clientSecret?: string;
  redirectUri: string;
  logger: Logger;
}

export class OidcStudioLogin implements StudioLoginProvider {
  private config: Promise<oidc.Configuration> | undefined;

  constructor(private readonly options: StudioOidcOptions) {}

  async authorizationUrl(login: { state: string; nonce: string; codeVerifier: string }): Promise<URL> {
    const config = await this.discover();
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.options.redirectUri,
      scope: 'openid',
      response_type: 'code',
      state: login.state,
      nonce: login.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(login.codeVerifier),
      code_challenge_method: 'S256',
    });
  }

  async identity(callbackUrl: URL, login: { state: string; nonce: string; codeVerifier: string }): Promise<{ issuer: string; subject: string }> {
    const config = await this.discover();
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: login.codeVerifier,
      expectedState: login.state,
      expectedNonce: login.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims?.sub) throw new Error('the ID token has no subject');
    return { issuer: config.serverMetadata().issuer, subject: claims.sub };
  }

  private discover(): Promise<oidc.Configuration> {
    this.config ??= (async () => {
      const url = new URL(this.options.issuer);
      // Plain http only for an issuer on this machine (development and tests), as the verifier.
      const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || url.hostname.startsWith('127.');
      const execute = loopback && url.protocol === 'http:' ? [oidc.allowInsecureRequests] : [];
      const auth = this.options.clientSecret ? oidc.ClientSecretPost(this.options.clientSecret) : oidc.None();
      return oidc.discovery(url, this.options.clientId, this.options.clientSecret, auth, { execute });
    })().catch((err: unknown) => {
      this.config = undefined;
      this.options.logger.error('studio: OIDC discovery failed', { issuer: this.options.issuer, error: err instanceof Error ? err.message : String(err) });
      throw err;
    });
    return this.config;
  }
}
