import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { MAX_PENDING_LOGINS } from '@inntak/studio';
import { BASE_URL, setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { cookieValue, setCookies, studioApp } from '../__tests__/studio-scene.js';
import { OidcStudioLogin } from './studio-oidc.js';

// The console attacked as an outsider would (docs/security.md, "Third attack (this round)").

let ctx: TestContext;
let app: Express;

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  await ctx.addPerson('redaktor');
});
afterAll(() => ctx.close());

async function preCookie(): Promise<string> {
  const form = await request(app).get('/studio/login');
  return cookieValue(setCookies(form).inntak_studio_pre!);
}

describe('the development login answers only a browser on this machine', () => {
  it('a page that re-pointed its own name at 127.0.0.1 (DNS rebinding) gets neither the form nor a session (404)', async () => {
    const page = await request(app).get('/studio/login').set('Host', 'angriper.example');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Brukernavn');
    expect(setCookies(page).inntak_studio_pre).toBeUndefined();
    // Even holding a form token got through a loopback name, another Host is refused.
    const pre = await preCookie();
    const res = await request(app)
      .post('/studio/login/dev')
      .set('Host', 'angriper.example:3000')
      .set('Cookie', `inntak_studio_pre=${pre}`)
      .type('form')
      .send({ csrf: pre, brukernavn: 'redaktor' });
    expect(res.status).toBe(404);
    expect(setCookies(res).inntak_studio).toBeUndefined();
    expect((await ctx.database.pool.query('select 1 from studio_sessions')).rowCount).toBe(0);
  });

  it('a request a reverse proxy on this machine forwards (X-Forwarded-For or Forwarded) gets no session (404)', async () => {
    for (const [name, value] of [
      ['X-Forwarded-For', '203.0.113.9'],
      ['Forwarded', 'for=203.0.113.9'],
    ] as const) {
      const pre = await preCookie();
      const res = await request(app).post('/studio/login/dev').set(name, value).set('Cookie', `inntak_studio_pre=${pre}`).type('form').send({ csrf: pre, brukernavn: 'redaktor' });
      expect(res.status).toBe(404);
      expect(setCookies(res).inntak_studio).toBeUndefined();
    }
    expect((await ctx.database.pool.query('select 1 from studio_sessions')).rowCount).toBe(0);
  });

  it('by a loopback name (127.0.0.1, localhost, [::1]) it still logs in', async () => {
    for (const host of ['127.0.0.1:8080', 'localhost', '[::1]:8080']) {
      const pre = await preCookie();
      const res = await request(app).post('/studio/login/dev').set('Host', host).set('Cookie', `inntak_studio_pre=${pre}`).type('form').send({ csrf: pre, brukernavn: 'redaktor' });
      expect(res.status).toBe(303);
      expect(setCookies(res).inntak_studio).toBeDefined();
    }
  });
});

describe('logins under way are bounded', () => {
  it('with MAX_PENDING_LOGINS live ones waiting, /studio/login/start answers 503 and stores nothing; expired ones are swept and it starts again', async () => {
    const login = new OidcStudioLogin({ issuer: ctx.issuer.issuer, clientId: 'inntak-studio', redirectUri: `${BASE_URL}/studio/callback`, logger: ctx.logger });
    const oidc = studioApp(ctx, { login, devIssuer: undefined });
    // Anyone may start a login without a credential: what thousands of such requests leave behind.
    await ctx.database.pool.query(
      `insert into studio_logins (state_hash, code_verifier, nonce, expires_at)
       select sha256(('s' || i)::bytea), 'v', 'n', now() + interval '10 minutes' from generate_series(1, $1::int) i`,
      [MAX_PENDING_LOGINS],
    );
    const full = await request(oidc).get('/studio/login/start');
    expect(full.status).toBe(503);
    expect(full.headers['retry-after']).toBe('60');
    expect(full.text).toContain('For mange innlogginger er under veis');
    expect((await ctx.database.pool.query('select count(*)::int as n from studio_logins')).rows[0].n).toBe(MAX_PENDING_LOGINS);
    await ctx.database.pool.query(`update studio_logins set expires_at = now() - interval '1 second'`);
    const again = await request(oidc).get('/studio/login/start');
    expect(again.status).toBe(303);
    expect((await ctx.database.pool.query('select count(*)::int as n from studio_logins')).rows[0].n).toBe(1);
  });
});
