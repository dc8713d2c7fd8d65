import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registers the console's redirect URI (known once the API has a port) and starts answering. */
  start(redirectUri: string): void;
  close(): Promise<void>;
}

/**
 * A real, certified OpenID provider (npm oidc-provider) on 127.0.0.1 with its own login form
 * (devInteractions: any login and password; the login is the subject). Authorization code with
 * PKCE required; one confidential client. The port is taken first, so the API can be told the
 * issuer before the provider knows the API's redirect URI.
 */
export async function startTestProvider(): Promise<TestProvider> {
  let handler: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => {
    if (handler) return handler(req, res);
    res.statusCode = 503;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'inntak-studio';
  const clientSecret = 'e2e-hemmelighet-som-er-lang-nok-for-hs256';
  return {
    issuer,
    clientId,
    clientSecret,
    start(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], response_types: ['code'], grant_types: ['authorization_code'], token_endpoint_auth_method: 'client_secret_post' }],
        pkce: { required: () => true },
        features: { devInteractions: { enabled: true } },
        cookies: { keys: ['e2e-informasjonskapsel-nokkel'] },
        findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
      });
      // The provider warns about development settings on every start: expected here.
      provider.on('server_error', (_ctx, err) => console.error('oidc-provider', err));
      handler = provider.callback();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
