import type { TokenVerifier } from '@inntak/access';
import type { DevIssuer } from '@inntak/dev-issuer';

/**
 * INNTAK_DEV_ISSUER=1 on loopback: tokens whose `iss` is the development issuer's are verified
 * with its key (from the data directory); every other token goes to the configured verifier.
 */
export class DevIssuerVerifier implements TokenVerifier {
  constructor(
    private readonly dev: DevIssuer,
    private readonly next: TokenVerifier,
  ) {}

  verify(token: string): Promise<{ issuer: string; subject: string; expiresAt?: Date }> {
    return this.dev.claims(token) ? this.dev.verify(token) : this.next.verify(token);
  }
}
