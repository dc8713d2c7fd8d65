import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { cookieValue, get, logIn, postForm, setCookies, studioApp } from '../__tests__/studio-scene.js';

let ctx: TestContext;
let app: Express;

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  await ctx.addPerson('redaktor');
});
afterAll(() => ctx.close());

describe('logging in to /studio', () => {
  it('a visitor without a session is sent to the login page, which keeps where they were going', async () => {
    const res = await request(app).get('/studio/webhooks');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/studio/login?neste=%2Fstudio%2Fwebhooks');
  });

  it('with INNTAK_DEV_ISSUER=1 the login page offers a form with the field "Brukernavn" and the button "Logg inn"', async () => {
    const res = await request(app).get('/studio/login');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<label for="brukernavn">Brukernavn<\/label>/);
    expect(res.text).toMatch(/<button type="submit">Logg inn<\/button>/);
  });

  it('without the development issuer the form is not offered and its login answers 404', async () => {
    const plain = studioApp(ctx, { devIssuer: undefined });
    expect((await request(plain).get('/studio/login')).text).not.toContain('Brukernavn');
    const res = await request(plain).post('/studio/login/dev').type('form').send({ brukernavn: 'redaktor', csrf: 'x' });
    expect(res.status).toBe(404);
    expect(setCookies(res).inntak_studio).toBeUndefined();
  });

  it('the development form without its CSRF cookie is refused (403), no session', async () => {
    const res = await request(app).post('/studio/login/dev').type('form').send({ brukernavn: 'redaktor', csrf: 'gjettet' });
    expect(res.status).toBe(403);
    expect(setCookies(res).inntak_studio).toBeUndefined();
  });

  it('an unknown subject gets a clear page (401 Ukjent brukeridentitet), not a 500 and no session', async () => {
    const form = await request(app).get('/studio/login');
    const pre = cookieValue(setCookies(form).inntak_studio_pre!);
    const res = await request(app).post('/studio/login/dev').set('Cookie', `inntak_studio_pre=${pre}`).type('form').send({ csrf: pre, brukernavn: 'ukjent' });
    expect(res.status).toBe(401);
    expect(res.text).toContain('Ukjent brukeridentitet');
    expect(setCookies(res).inntak_studio).toBeUndefined();
  });

  it('a known subject gets a session cookie: HttpOnly, SameSite=Lax, Secure off loopback, expiring, only for /studio', async () => {
    const form = await request(app).get('/studio/login');
    const pre = cookieValue(setCookies(form).inntak_studio_pre!);
    const res = await request(app).post('/studio/login/dev').set('Cookie', `inntak_studio_pre=${pre}`).type('form').send({ csrf: pre, brukernavn: 'redaktor', neste: '/studio/webhooks' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/studio/webhooks');
    const cookie = setCookies(res).inntak_studio!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; Path=\/studio/);
    expect(cookie).toMatch(/; Max-Age=28800/);
  });

  it('on loopback (BASE_URL http://127.0.0.1) the cookie is not Secure, so the console works over plain http there', async () => {
    const loopback = studioApp(ctx, {}, { baseUrl: 'http://127.0.0.1:8080' });
    const form = await request(loopback).get('/studio/login');
    const pre = cookieValue(setCookies(form).inntak_studio_pre!);
    const res = await request(loopback).post('/studio/login/dev').set('Cookie', `inntak_studio_pre=${pre}`).type('form').send({ csrf: pre, brukernavn: 'redaktor' });
    expect(setCookies(res).inntak_studio).not.toMatch(/Secure/);
  });

  it('only a path inside the console is a place to return to (no open redirect)', async () => {
    const form = await request(app).get('/studio/login');
    const pre = cookieValue(setCookies(form).inntak_studio_pre!);
    const res = await request(app).post('/studio/login/dev').set('Cookie', `inntak_studio_pre=${pre}`).type('form').send({ csrf: pre, brukernavn: 'redaktor', neste: '//evil.example/studio' });
    expect(res.headers.location).toBe('/studio');
  });
});

describe('the session', () => {
  it('is rotated on login: a new token, and the one the browser came with no longer works', async () => {
    const first = await logIn(app, 'redaktor');
    const second = await logIn(app, 'redaktor', cookieValue(first.cookie));
    expect(second.cookie).not.toBe(first.cookie);
    expect((await get(app, first, '/studio')).status).toBe(303);
    expect((await get(app, second, '/studio')).status).toBe(200);
  });

  it('expires: past its expiry the cookie leads to the login page again', async () => {
    const browser = await logIn(app, 'redaktor');
    await ctx.database.pool.query(`update studio_sessions set expires_at = now() - interval '1 second'`);
    const res = await get(app, browser, '/studio');
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/^\/studio\/login/);
  });

  it('is stored as a hash: the token in the cookie is nowhere in the table', async () => {
    const browser = await logIn(app, 'redaktor');
    const { rows } = await ctx.database.pool.query<{ hex: string }>(`select encode(token_hash, 'hex') as hex from studio_sessions`);
    const token = cookieValue(browser.cookie);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.hex.includes(Buffer.from(token).toString('hex')))).toBe(false);
  });

  it('ends with logout (a form with the CSRF token): the cookie is cleared and no longer opens the console', async () => {
    const browser = await logIn(app, 'redaktor');
    const res = await postForm(app, browser, '/studio/logout', {});
    expect(res.status).toBe(303);
    expect(setCookies(res).inntak_studio).toMatch(/Max-Age=0/);
    expect((await get(app, browser, '/studio')).status).toBe(303);
  });

  it('ends when the person is removed: the identity is looked up on every request, as for /me', async () => {
    const gone = await ctx.addPerson('forsvinner');
    const browser = await logIn(app, 'forsvinner');
    await ctx.database.pool.query('delete from auth_identities where node_id = $1', [gone.id]);
    expect((await get(app, browser, '/studio')).status).toBe(303);
  });
});

describe('CSRF on every form', () => {
  it('a form posted without the CSRF token is refused with 403 and changes nothing', async () => {
    const browser = await logIn(app, 'redaktor');
    const res = await postForm(app, browser, '/studio/logout', {}, null);
    expect(res.status).toBe(403);
    expect(res.text).toContain('CSRF');
    expect((await get(app, browser, '/studio')).status).toBe(200);
  });

  it("another session's token is refused too", async () => {
    const mine = await logIn(app, 'redaktor');
    const theirs = await logIn(app, 'redaktor');
    const res = await postForm(app, mine, '/studio/logout', {}, theirs.csrf);
    expect(res.status).toBe(403);
  });

  it('a POST without a session is 401, not a redirect', async () => {
    const res = await request(app).post('/studio/logout').type('form').send({ csrf: 'x' });
    expect(res.status).toBe(401);
  });
});

describe('bad forms', () => {
  it('a form larger than the console takes is 413 as a page, not a 500', async () => {
    const browser = await logIn(app, 'redaktor');
    const res = await postForm(app, browser, '/studio/logout', { fyll: 'x'.repeat(300_000) });
    expect(res.status).toBe(413);
    expect(res.text).toContain('Forespørselen er for stor');
  });
});

describe('page headers', () => {
  it('console pages are not stored by caches and cannot be framed or load anything from elsewhere', async () => {
    const browser = await logIn(app, 'redaktor');
    const res = await get(app, browser, '/studio');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
