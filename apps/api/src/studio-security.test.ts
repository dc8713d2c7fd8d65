import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';
import { cookieValue, setCookies, studioApp } from './__tests__/studio-scene.js';

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
