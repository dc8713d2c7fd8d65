import express, { type ErrorRequestHandler, type Express } from 'express';
import { z } from 'zod';
import { AppError, coerceError, type Logger } from '@inntak/core';
import type { IdentityDirectory } from '@inntak/access';
import { html } from '@inntak/publishing';
import type { StudioReads, StudioSessionStore } from '@inntak/studio';
import { errorResponse } from '../errors.js';
import { isLoopbackHost } from '../config.js';
import type { RouteRegistry } from '../route-registry.js';
import { layout, sendPage } from './studio-html.js';
import { installStudioLogin } from './studio-login.js';
import type { StudioLoginProvider } from './studio-oidc.js';
import { loadSession, requireStudioSession, viewOf, type CookieOptions } from './studio-session.js';
import { installStudioWebhooks, type StudioWebhookDeps } from './studio-webhooks.js';
import { installStudioPublications, type StudioPublicationDeps } from './studio-publications.js';
import { installStudioOrchestrations, type StudioOrchestrationDeps } from './studio-orchestrations.js';
import { installStudioSystem, type StudioSystemDeps } from './studio-system.js';

/** What the composition root gives the console (AppDeps.studio). */
export interface StudioSettings {
  sessions: StudioSessionStore;
  reads: StudioReads;
  /** OpenID Connect login (OIDC_ISSUER + OIDC_CLIENT_ID); absent: only the development form, if that. */
  login?: StudioLoginProvider;
  /** INNTAK_DEV_ISSUER=1 on loopback: the development issuer's `iss`; absent: the form is refused. */
  devIssuer?: string;
  /** STUDIO_SESSION_HOURS; default 8. */
  sessionHours?: number;
}

export type StudioDeps = StudioWebhookDeps &
  StudioPublicationDeps &
  StudioOrchestrationDeps &
  StudioSystemDeps & {
    studio: StudioSettings;
    identities: IdentityDirectory;
    logger: Logger;
    baseUrl: string;
  };

const PAGES: Array<[method: 'get' | 'post', path: string, summary: string]> = [
  ['get', '/studio', 'The console (HTML): what the logged-in person may do'],
  ['get', '/studio/login', 'Login page: OpenID Connect, and with INNTAK_DEV_ISSUER=1 a development form'],
  ['get', '/studio/login/start', 'Starts an OpenID Connect login (authorization code + PKCE): 303 to the provider'],
  ['get', '/studio/callback', "The provider's redirect back: the code is exchanged, a session cookie set"],
  ['post', '/studio/login/dev', 'Development login by subject (INNTAK_DEV_ISSUER=1 on loopback only; 404 otherwise)'],
  ['post', '/studio/logout', 'Ends the session'],
  ['get', '/studio/webhooks', 'The webhooks the person administers'],
  ['get', '/studio/webhooks/{id}', "A webhook: URL, template, signing, delivery log (?status, ?cursor)"],
  ['get', '/studio/webhooks/{id}/noder/{node_id}', "A delivered node's stored payload and a template preview (?mal)"],
  ['get', '/studio/publikasjoner', 'Publications the person is member or better of'],
  ['get', '/studio/publikasjoner/{id}', "A publication's articles and their front-page tests"],
  ['get', '/studio/orkestreringer', 'Orchestrations per collection'],
  ['get', '/studio/orkestreringer/{id}', "An orchestration's runs, one log row per step"],
  ['get', '/studio/system', 'Jobs, resources, disk history and priority rules (system administrators)'],
  // The forms (POST, CSRF field; 303 back to their page unless noted).
  ['post', '/studio/webhooks/{id}/mal', 'set_template from a form'],
  ['post', '/studio/webhooks/{id}/nytt-token', 'rotate_webhook_token from a form; 200: the page with the new URL'],
  ['post', '/studio/webhooks/{id}/signering', 'set_webhook_secret from a form (empty secret: one is made); 200: the page showing it once'],
  ['post', '/studio/webhooks/{id}/gjengi', "rerender every node in the webhook's delivery log; 200: a page streamed with the progress"],
  ['post', '/studio/webhooks/{id}/noder/{node_id}/gjengi', 'rerender one node from a form'],
  ['get', '/studio/publikasjoner/{id}/vinner', 'Confirmation before choosing a winner of a test that has not decided: what is known (edge_id in the query)'],
  ['post', '/studio/publikasjoner/{id}/vinner', 'ab_override from a form (owners and admins); before the test has decided only with bekreftet=ja from the confirmation page'],
  ['post', '/studio/publikasjoner/{id}/pause', 'pause_ab_test from a form (owners and admins)'],
  ['post', '/studio/publikasjoner/{id}/fortsett', 'resume_ab_test from a form (owners and admins)'],
  ['post', '/studio/publikasjoner/{id}/publiser', 'publish_article from a form'],
  ['post', '/studio/publikasjoner/{id}/avpubliser', 'unpublish_article from a form'],
  ['post', '/studio/publikasjoner/{id}/varianter', 'create_variant from a form'],
  ['post', '/studio/orkestreringer/{id}/aktiv', 'set_orchestration_enabled from a form'],
  ['post', '/studio/system/jobber/{id}/{action}', 'retry_job (prov-igjen) or cancel_job (avbryt) from a form'],
  ['post', '/studio/system/regler', 'update_rule from a form'],
];
const ANSWERS_A_PAGE = new Set(['/studio/webhooks/{id}/nytt-token', '/studio/webhooks/{id}/signering', '/studio/webhooks/{id}/gjengi']);

/**
 * The console at /studio (docs/studio.md): server-rendered Norwegian pages over a session cookie.
 * Every action calls the use case the matching API route calls, with the session's caller, so
 * there is no second authorization path; an AppError is answered as the API would (status and
 * text), as a page.
 */
export function installStudio(app: Express, registry: RouteRegistry, deps: StudioDeps): void {
  for (const [method, path, summary] of PAGES) {
    registry.describe({
      method,
      path,
      summary,
      description: 'An HTML page of the console (session cookie; every form carries its CSRF token). See docs/studio.md.',
      tags: ['studio'],
      auth: 'public',
      response:
        ANSWERS_A_PAGE.has(path) || (method === 'get' && !path.endsWith('/start') && !path.endsWith('/callback'))
          ? { status: 200, schema: z.string(), contentType: 'text/html', description: 'An HTML page' }
          : { status: 303, schema: z.never(), description: 'To the next page (Location)' },
      errors: [],
      // Failures are pages too, with the API's status and text (studioErrors below).
      errorPages: [400, 401, 403, 404, 500],
    });
  }
  const host = new URL(deps.baseUrl).hostname;
  const cookies: CookieOptions = { secure: !isLoopbackHost(host) };
  const router = express.Router();
  router.use(express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 100 }));
  router.use(loadSession({ sessions: deps.studio.sessions, identities: deps.identities }));
  installStudioLogin(router, {
    sessions: deps.studio.sessions,
    identities: deps.identities,
    logger: deps.logger,
    cookies,
    sessionHours: deps.studio.sessionHours ?? 8,
    redirectUri: `${deps.baseUrl.replace(/\/$/, '')}/studio/callback`,
    login: deps.studio.login,
    devIssuer: deps.studio.devIssuer,
  });
  router.use(requireStudioSession);
  router.get('/', (_req, res) => {
    const view = viewOf(res);
    sendPage(
      res,
      200,
      layout(
        view,
        'Oversikt',
        html`<ul>
<li><a href="/studio/publikasjoner">Publikasjoner</a>: forsidetester, publisering, varianter</li>
<li><a href="/studio/webhooks">Webhooks</a>: leveranser, maler, nøkler</li>
<li><a href="/studio/orkestreringer">Orkestreringer</a>: kjøringer og logg</li>
${view.caller?.isAdmin ? html`<li><a href="/studio/system">System</a>: jobber, ressurser, prioritetsregler</li>` : ''}
</ul>`,
      ),
    );
  });
  installStudioWebhooks(router, deps);
  installStudioPublications(router, deps);
  installStudioOrchestrations(router, deps);
  installStudioSystem(router, deps);
  router.use((_req, res) => {
    sendPage(res, 404, layout(viewOf(res), 'Finnes ikke', html`<p>Siden finnes ikke.</p>`));
  });
  router.use(studioErrors(deps.logger));
  app.use('/studio', router);
}

/** Failures as pages, with the API's status and text for the same AppError. */
function studioErrors(logger: Logger): ErrorRequestHandler {
  return (thrown, req, res, _next) => {
    if (thrown instanceof AppError) {
      const { status, body } = errorResponse(thrown);
      if (status === 401 && req.method === 'GET') return res.redirect(303, '/studio/login');
      return sendPage(res, status, layout(viewOf(res), status === 404 ? 'Finnes ikke' : status === 403 ? 'Ingen tilgang' : 'Det gikk ikke', html`<p class="error" role="alert">${body.error}</p><p><a href="/studio">Til oversikten</a></p>`));
    }
    // A form the body parser refused (too large, too many fields, unreadable): the client's 4xx.
    const status = (thrown as { status?: unknown } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const text = status === 413 ? 'Forespørselen er for stor' : 'Forespørselen kunne ikke leses';
      return sendPage(res, status, layout(viewOf(res), 'Det gikk ikke', html`<p class="error" role="alert">${text}</p>`));
    }
    const err = coerceError(thrown);
    logger.error('studio: unhandled error', { method: req.method, path: req.baseUrl, error: err.message, stack: err.stack });
    sendPage(res, 500, layout(viewOf(res), 'Intern feil', html`<p class="error" role="alert">Intern feil. Prøv igjen om litt.</p>`));
  };
}
