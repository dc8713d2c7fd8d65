import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { tokenHash } from '@inntak/studio';
import { BASE_URL, setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { cookieValue, setCookies, studioApp } from '../__tests__/studio-scene.js';
import { OidcStudioLogin } from './studio-oidc.js';

// The OpenID login's own checks, against the local test issuer (its token endpoint refuses every
// code); the whole flow through a real provider's login form is test/e2e/studio.e2e.ts.
let ctx: TestContext;
let app: Express;

beforeAll(async () => {
  ctx = await setupTestContext();
  const login = new OidcStudioLogin({ issuer: ctx.issuer.issuer, clientId: 'inntak-studio', redirectUri: `${BASE_URL}/studio/callback`, logger: ctx.logger });
  app = studioApp(ctx, { login, devIssuer: undefined });
});
afterAll(() => ctx.close());

async function start(): Promise<{ location: URL; state: string; cookie: string }> {
  const res = await request(app).get('/studio/login/start?neste=%2Fstudio%2Fwebhooks');
  expect(res.status).toBe(303);
  const location = new URL(res.headers.location!);
  return { location, state: location.searchParams.get('state')!, cookie: setCookies(res).inntak_studio_login! };
}

describe('OpenID Connect login (authorization code + PKCE)', () => {
  it('the login page offers it', async () => {
    expect((await request(app).get('/studio/login')).text).toContain('Logg inn med OpenID Connect');
  });

  it('sends the browser to the provider with code, PKCE S256, state, nonce and {BASE_URL}/studio/callback', async () => {
    const { location, cookie } = await start();
    expect(`${location.origin}${location.pathname}`).toBe(`${ctx.issuer.issuer}/authorize`);
    const q = location.searchParams;
    expect(q.get('client_id')).toBe('inntak-studio');
    expect(q.get('response_type')).toBe('code');
    expect(q.get('scope')).toBe('openid');
    expect(q.get('redirect_uri')).toBe(`${BASE_URL}/studio/callback`);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('nonce')).toBeTruthy();
    expect(cookie).toMatch(/HttpOnly; SameSite=Lax/);
  });

  it('keeps only the hash of the state, with the verifier, until the callback', async () => {
    const { state } = await start();
    const { rows } = await ctx.database.pool.query(`select code_verifier from studio_logins where state_hash = $1`, [tokenHash(state)]);
    expect(rows).toHaveLength(1);
    const { rows: raw } = await ctx.database.pool.query(`select 1 from studio_logins where encode(state_hash, 'escape') like $1`, [`%${state}%`]);
    expect(raw).toHaveLength(0);
  });

  it('a callback in a browser that did not start the login is refused (400), no session', async () => {
    const { state } = await start();
    const res = await request(app).get(`/studio/callback?code=abc&state=${state}`);
    expect(res.status).toBe(400);
    expect(setCookies(res).inntak_studio).toBeUndefined();
  });

  it('a code the provider does not confirm is 401, and the state cannot be used again', async () => {
    const { state, cookie } = await start();
    const login = `inntak_studio_login=${encodeURIComponent(cookieValue(cookie))}`;
    const res = await request(app).get(`/studio/callback?code=abc&state=${state}`).set('Cookie', login);
    expect(res.status).toBe(401);
    expect(res.text).toContain('Ugyldig token');
    expect(setCookies(res).inntak_studio).toBeUndefined();
    const again = await request(app).get(`/studio/callback?code=abc&state=${state}`).set('Cookie', login);
    expect(again.status).toBe(400);
  });

  it('the provider refusing the login is a clear 401 page', async () => {
    const { state, cookie } = await start();
    const res = await request(app).get(`/studio/callback?error=access_denied&state=${state}`).set('Cookie', `inntak_studio_login=${encodeURIComponent(cookieValue(cookie))}`);
    expect(res.status).toBe(401);
    expect(res.text).toContain('avbrøt');
  });

  it('without OIDC_CLIENT_ID the OpenID login is not offered (404)', async () => {
    const plain = studioApp(ctx, { devIssuer: undefined });
    expect((await request(plain).get('/studio/login/start')).status).toBe(404);
    expect((await request(plain).get('/studio/login')).text).toContain('ikke satt opp');
  });
});
