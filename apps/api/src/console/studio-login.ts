import type { Request, Response, Router } from 'express';
import { randomPKCECodeVerifier, randomNonce, randomState } from 'openid-client';
import type { IdentityDirectory } from '@inntak/access';
import type { Logger } from '@inntak/core';
import { html, type Html } from '@inntak/publishing';
import { csrfMatches, endSession, randomToken, startSession, tokenHash, type StudioSessionStore } from '@inntak/studio';
import { isLoopbackHost } from '../config.js';
import { EMPTY_FORM, errorSummary, field, valuesOf, type FormState } from './studio-forms.js';
import { layout, sendPage } from './studio-html.js';
import type { StudioLoginProvider } from './studio-oidc.js';
import { clearCookie, LOGIN_COOKIE, PRE_COOKIE, readCookies, requireStudioSession, safeReturnPath, SESSION_COOKIE, setCookie, studioOf, type CookieOptions } from './studio-session.js';

export interface StudioLoginDeps {
  sessions: StudioSessionStore;
  identities: IdentityDirectory;
  logger: Logger;
  cookies: CookieOptions;
  sessionHours: number;
  /** {BASE_URL}/studio/callback. */
  redirectUri: string;
  /** OpenID Connect login (OIDC_ISSUER + OIDC_CLIENT_ID); absent: not offered. */
  login?: StudioLoginProvider;
  /** INNTAK_DEV_ISSUER=1 on loopback: the issuer a "Brukernavn" is looked up under; absent: refused. */
  devIssuer?: string;
}

/** A login under way lasts this long: the provider's form is filled in minutes, not hours. */
const LOGIN_MINUTES = 10;

/** Login (OpenID Connect code + PKCE, or the development form), the callback and logout. */
export function installStudioLogin(router: Router, deps: StudioLoginDeps): void {
  const { cookies } = deps;

  /** The login page; `form` is a refused development form to show again (its error on the field). */
  function loginPage(req: Request, res: Response, next: string, form: FormState = EMPTY_FORM): Html {
    const devOffered = deps.devIssuer !== undefined && fromThisMachine(req);
    const pre = randomToken();
    if (devOffered) setCookie(res, cookies, PRE_COOKIE, pre, LOGIN_MINUTES * 60);
    const oidc = deps.login
      ? html`<p><a href="/studio/login/start?neste=${encodeURIComponent(next)}">Logg inn med OpenID Connect</a></p>`
      : html`<p>Innlogging med OpenID Connect er ikke satt opp (OIDC_ISSUER og OIDC_CLIENT_ID).</p>`;
    const dev = devOffered
      ? html`<section aria-labelledby="dev"><h2 id="dev">Utviklingsinnlogging</h2>
<p>Bare på denne maskinen (INNTAK_DEV_ISSUER=1): logg inn som en kjent person uten identitetsleverandør.</p>
${errorSummary(form)}
<form method="post" action="/studio/login/dev">
<input type="hidden" name="csrf" value="${pre}"><input type="hidden" name="neste" value="${next}">
${field(form, { name: 'brukernavn', label: 'Brukernavn', required: true, maxlength: 255, autocomplete: 'username', hint: 'Subjektet (sub) personen ble lagt til med: inntak person add --subject …' })}
<p><button type="submit">Logg inn</button></p>
</form></section>`
      : '';
    return layout({}, 'Logg inn', html`${oidc}${dev}`);
  }

  router.get('/login', (req, res) => {
    sendPage(res, 200, loginPage(req, res, safeReturnPath(req.query.neste)));
  });

  router.get('/login/start', async (req, res) => {
    if (!deps.login) return notOffered(res);
    const login = { state: randomState(), nonce: randomNonce(), codeVerifier: randomPKCECodeVerifier() };
    if (!(await deps.sessions.insertLogin(tokenHash(login.state), { codeVerifier: login.codeVerifier, nonce: login.nonce }, new Date(Date.now() + LOGIN_MINUTES * 60_000)))) {
      res.set('Retry-After', '60');
      return failed(res, 503, 'For mange innlogginger er under veis akkurat nå. Prøv igjen om litt.');
    }
    let target: URL;
    try {
      target = await deps.login.authorizationUrl(login);
    } catch {
      // Discovery failed (logged by the client): the provider is down, not the console.
      return failed(res, 503, 'Identitetsleverandøren svarer ikke nå. Prøv igjen om litt.');
    }
    setCookie(res, cookies, LOGIN_COOKIE, `${login.state} ${safeReturnPath(req.query.neste)}`, LOGIN_MINUTES * 60);
    res.redirect(303, target.href);
  });

  router.get('/callback', async (req, res) => {
    if (!deps.login) return notOffered(res);
    const [bound, next] = (readCookies(req)[LOGIN_COOKIE] ?? '').split(' ');
    clearCookie(res, cookies, LOGIN_COOKIE);
    const state = typeof req.query.state === 'string' ? req.query.state : '';
    if (typeof req.query.error === 'string') return failed(res, 401, 'Identitetsleverandøren avbrøt innloggingen.');
    // The state must be the one this browser started with, and a stored one (once).
    const stored = state && bound === state ? await deps.sessions.takeLogin(tokenHash(state), new Date()) : undefined;
    if (!stored) return failed(res, 400, 'Innloggingen er utløpt eller ble startet i en annen nettleser. Prøv igjen.');
    let identity;
    try {
      identity = await deps.login.identity(callbackUrl(req), { state, nonce: stored.nonce, codeVerifier: stored.codeVerifier });
    } catch (err) {
      deps.logger.warn('studio: login callback refused', { error: err instanceof Error ? err.message : String(err) });
      return failed(res, 401, 'Innloggingen kunne ikke bekreftes (Ugyldig token).');
    }
    await logIn(req, res, identity, safeReturnPath(next));
  });

  router.post('/login/dev', async (req, res) => {
    if (!deps.devIssuer || !fromThisMachine(req)) return notOffered(res);
    const body = req.body as Record<string, unknown>;
    if (!csrfMatches(readCookies(req)[PRE_COOKIE] ?? '', body.csrf) || !readCookies(req)[PRE_COOKIE]) {
      return failed(res, 403, 'Skjemaet er utløpt. Last innloggingssiden på nytt.');
    }
    const values = valuesOf(body);
    const next = safeReturnPath(body.neste);
    const subject = values.brukernavn?.trim() ?? '';
    // Errors on the form itself: the field named, what was typed kept.
    if (!subject) return sendPage(res, 400, loginPage(req, res, next, { values, errors: { brukernavn: '«Brukernavn» må fylles ut.' } }));
    const caller = await deps.identities.findCaller(deps.devIssuer, subject);
    if (!caller) return sendPage(res, 401, loginPage(req, res, next, { values, errors: { brukernavn: `Ukjent brukeridentitet: ingen person her har brukernavnet «${subject}».` } }));
    clearCookie(res, cookies, PRE_COOKIE);
    await logIn(req, res, { issuer: deps.devIssuer, subject }, next);
  });

  router.post('/logout', requireStudioSession, async (_req, res) => {
    await endSession(deps.sessions, studioOf(res)!.token);
    clearCookie(res, cookies, SESSION_COOKIE);
    res.redirect(303, '/studio/login');
  });

  /** The subject must be a known identity, as for /me; then a new session (the old one is dropped). */
  async function logIn(req: Request, res: Response, identity: { issuer: string; subject: string }, next: string): Promise<void> {
    const caller = await deps.identities.findCaller(identity.issuer, identity.subject);
    if (!caller) {
      return failed(res, 401, 'Ukjent brukeridentitet: innloggingen gikk bra, men ingen person her er knyttet til den. Be en administrator legge deg til (inntak person add).');
    }
    const session = await startSession(deps.sessions, identity, { ttlMs: deps.sessionHours * 3600_000, previousToken: readCookies(req)[SESSION_COOKIE] });
    setCookie(res, cookies, SESSION_COOKIE, session.token, deps.sessionHours * 3600);
    res.redirect(303, next);
  }

  function callbackUrl(req: Request): URL {
    // The redirect URI registered at the provider ({BASE_URL}/studio/callback) with the provider's answer.
    const url = new URL(deps.redirectUri);
    const query = req.originalUrl.indexOf('?');
    url.search = query < 0 ? '' : req.originalUrl.slice(query);
    return url;
  }
}

/**
 * The development form logs anyone in by name alone, so it answers only a browser on this machine
 * talking to it by a loopback name: the API listening on loopback is not enough. A page on another
 * site that re-points its own name at 127.0.0.1 (DNS rebinding) reaches the port with its own
 * name in Host, and a reverse proxy on this machine brings other machines' requests from a
 * loopback address with X-Forwarded-For or Forwarded: both are refused (404, as when it is off).
 */
function fromThisMachine(req: Request): boolean {
  if (req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined) return false;
  const remote = req.socket.remoteAddress ?? '';
  if (!isLoopbackHost(remote.replace(/^::ffff:/, ''))) return false;
  let hostname: string;
  try {
    hostname = new URL(`http://${req.headers.host ?? ''}`).hostname;
  } catch {
    return false;
  }
  return isLoopbackHost(hostname);
}

function notOffered(res: Response): void {
  failed(res, 404, 'Denne innloggingen er ikke slått på her.');
}

function failed(res: Response, status: number, message: string): void {
  sendPage(res, status, layout({}, 'Innloggingen mislyktes', html`<p class="error" role="alert">${message}</p><p><a href="/studio/login">Til innloggingen</a></p>`));
}
