import { expect } from '@jest/globals';
import request, { type Response } from 'supertest';
import type { Express } from 'express';
import { DEV_ISSUER } from '@inntak/dev-issuer';
import { PostgresStudioReads, PostgresStudioSessionStore } from '@inntak/postgres/studio';
import type { AppDeps } from '../app.js';
import type { TestContext } from './helpers.js';

// The console's tests log in through the development form (the OpenID login is the e2e test's):
// the same session, cookie and CSRF code behind either.

/** The app with the console, the development form on unless `devIssuer: undefined`. */
export function studioApp(ctx: TestContext, studio: Partial<NonNullable<AppDeps['studio']>> = {}, overrides: Partial<AppDeps> = {}): Express {
  return ctx.app({
    studio: { sessions: new PostgresStudioSessionStore(ctx.database.db), reads: new PostgresStudioReads(ctx.database.db), devIssuer: DEV_ISSUER, ...studio },
    ...overrides,
  });
}

/** The cookies a response sets, by name (value and attributes as sent). */
export function setCookies(res: Response): Record<string, string> {
  const raw = res.headers['set-cookie'] as unknown as string[] | undefined;
  return Object.fromEntries((raw ?? []).map((c) => [c.slice(0, c.indexOf('=')), c]));
}

export function cookieValue(setCookie: string): string {
  return decodeURIComponent(setCookie.slice(setCookie.indexOf('=') + 1).split(';')[0]!);
}

export interface Browser {
  cookie: string;
  csrf: string;
}

/** Logs `subject` in through the development form; the session cookie and a page's CSRF token. */
export async function logIn(app: Express, subject: string, previous?: string): Promise<Browser> {
  const form = await request(app).get('/studio/login');
  const pre = cookieValue(setCookies(form).inntak_studio_pre!);
  const cookie = [`inntak_studio_pre=${pre}`, ...(previous ? [`inntak_studio=${previous}`] : [])].join('; ');
  const res = await request(app).post('/studio/login/dev').set('Cookie', cookie).type('form').send({ csrf: pre, brukernavn: subject });
  expect(res.status).toBe(303);
  const session = cookieValue(setCookies(res).inntak_studio!);
  const home = await request(app).get('/studio').set('Cookie', `inntak_studio=${session}`);
  expect(home.status).toBe(200);
  return { cookie: `inntak_studio=${session}`, csrf: csrfOf(home.text) };
}

export function csrfOf(page: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error('no CSRF field on the page');
  return match[1]!;
}

export function get(app: Express, browser: Browser | undefined, path: string) {
  const req = request(app).get(path);
  return browser ? req.set('Cookie', browser.cookie) : req;
}

export function postForm(app: Express, browser: Browser, path: string, form: Record<string, string>, csrf: string | null = browser.csrf) {
  return request(app)
    .post(path)
    .set('Cookie', browser.cookie)
    .type('form')
    .send(csrf === null ? form : { ...form, csrf });
}
