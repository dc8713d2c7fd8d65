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
import { installStudioHome } from './studio-home.js';
import { installStudioLogin } from './studio-login.js';
import type { StudioLoginProvider } from './studio-oidc.js';
import { loadSession, requireStudioSession, viewOf, type CookieOptions } from './studio-session.js';
import { installStudioWebhooks, type StudioWebhookDeps } from './studio-webhooks.js';
import { installStudioWebhookManage } from './studio-webhooks-manage.js';
import { installStudioDeliveries } from './studio-deliveries.js';
import { installStudioPublications, type StudioPublicationDeps } from './studio-publications.js';
import { installStudioOrchestrations, type StudioOrchestrationDeps } from './studio-orchestrations.js';
import { installStudioSystem, type StudioSystemDeps } from './studio-system.js';
import { installStudioCollections, type StudioCollectionDeps } from './studio-collections.js';

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
  StudioSystemDeps &
  StudioCollectionDeps & {
    studio: StudioSettings;
    identities: IdentityDirectory;
    logger: Logger;
    baseUrl: string;
  };

const PAGES: Array<[method: 'get' | 'post', path: string, summary: string]> = [
  ['get', '/studio', 'The console (HTML): what needs the logged-in person (failing webhooks, tests waiting for a decision, failed jobs) and the way on'],
  ['get', '/studio/login', 'Login page: OpenID Connect, and with INNTAK_DEV_ISSUER=1 a development form'],
  ['get', '/studio/login/start', 'Starts an OpenID Connect login (authorization code + PKCE): 303 to the provider'],
  ['get', '/studio/callback', "The provider's redirect back: the code is exchanged, a session cookie set"],
  ['post', '/studio/login/dev', 'Development login by subject (INNTAK_DEV_ISSUER=1 on loopback only; 404 otherwise)'],
  ['post', '/studio/logout', 'Ends the session'],
  ['get', '/studio/webhooks', 'The webhooks the person administers, as a health view: collection, template, last request, refusals in the last hour and day'],
  ['get', '/studio/webhooks/ny', 'The form creating a webhook (name, collection, template, signing)'],
  ['get', '/studio/webhooks/{id}/navn', 'The form renaming a webhook'],
  ['get', '/studio/webhooks/{id}/slett', 'Deleting a webhook: the confirmation'],
  ['get', '/studio/webhooks/{id}/foresporsler', 'The delivery inspector: requests, accepted and refused (?leverings_id, ?hendelse, ?status, ?fra, ?til, ?cursor)'],
  ['get', '/studio/webhooks/{id}/foresporsler/{request_id}', 'One request: headers (secrets masked), body, replay'],
  ['get', '/studio/webhooks/{id}', "A webhook: URL, previous tokens (grace end, hits), template, signing, delivery log (?status, ?cursor)"],
  ['get', '/studio/webhooks/{id}/nytt-token', 'Rotating the token: confirmation and the grace period (hours the old URL stays accepted)'],
  ['get', '/studio/webhooks/{id}/noder/{node_id}', "A delivered node's stored payload and a template preview (?mal)"],
  ['get', '/studio/publikasjoner', 'Publications the person is member or better of'],
  ['get', '/studio/publikasjoner/{id}', "A publication's articles and their front-page tests"],
  ['get', '/studio/publikasjoner/{id}/innstillinger', "A publication's settings form (title, language, about)"],
  ['get', '/studio/publikasjoner/{id}/artikler/ny', 'The article editor: a new article (Markdown, server-rendered preview)'],
  ['get', '/studio/publikasjoner/{id}/artikler/{node_id}', 'The article editor: an existing node, and whether it is published here'],
  ['get', '/studio/publikasjoner/{id}/velg', "The picker: search the caller's nodes (?q), each with a Publiser button"],
  ['get', '/studio/orkestreringer', 'Orchestrations per collection'],
  ['get', '/studio/orkestreringer/{id}', "An orchestration's runs, one log row per step"],
  ['get', '/studio/system', 'Jobs, resources, disk history and priority rules (system administrators)'],
  ['get', '/studio/samlinger', 'Collections the person holds a level on, and a form to create one'],
  ['get', '/studio/samlinger/{id}', "A collection: the caller's level, its members (administrators), a person search (?finn) to grant access"],
  ['get', '/studio/orkestreringer/ny', 'The form for a new orchestration in a collection (?samling)'],
  // The forms (POST, CSRF field; 303 back to their page unless noted).
  ['post', '/studio/webhooks/ny', 'create_webhook (and set_webhook_secret) from a form; 200: the page showing URL and secret once'],
  ['post', '/studio/webhooks/{id}/navn', 'rename_webhook from a form'],
  ['post', '/studio/webhooks/{id}/slett', 'delete_webhook from the confirmation'],
  ['post', '/studio/webhooks/{id}/foresporsler/{request_id}/spill-av', 'replay_delivery from a form'],
  ['post', '/studio/webhooks/{id}/mal', 'set_template from a form'],
  ['post', '/studio/webhooks/{id}/nytt-token', 'rotate_webhook_token from the confirmation form (grace_hours); 200: the page with the new URL and the old one\'s grace end'],
  ['post', '/studio/webhooks/{id}/avslutt-overgang', 'end_webhook_token_grace from a form'],
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
  ['post', '/studio/publikasjoner/{id}/varianter/{edge_id}', 'update_variant from a form'],
  ['post', '/studio/publikasjoner/{id}/varianter/{edge_id}/fjern', 'remove_variant from a form'],
  ['post', '/studio/publikasjoner', 'create_publication from a form (the caller its owner)'],
  ['post', '/studio/publikasjoner/{id}/innstillinger', 'update_publication from a form'],
  ['post', '/studio/publikasjoner/{id}/artikler', 'create_node (content) from the article editor; handling=forhandsvis: 200, the page with the preview, nothing saved'],
  ['post', '/studio/publikasjoner/{id}/artikler/{node_id}', 'update_node from the article editor; handling=forhandsvis: 200, the page with the preview, nothing saved'],
  ['post', '/studio/orkestreringer/{id}/aktiv', 'set_orchestration_enabled from a form'],
  ['post', '/studio/orkestreringer/ny', 'create_collection_orchestration from a form; 400: the form again with line and column of a script error'],
  ['post', '/studio/orkestreringer/{id}/skript', 'update_orchestration from a form; 400: the form again with line and column of a script error'],
  ['post', '/studio/orkestreringer/{id}/kjor', 'run_orchestration from a form (input as a JSON object)'],
  ['post', '/studio/orkestreringer/{id}/kjoringer/{run_id}', 'rerun_orchestration from a form (from=start or failed_step)'],
  ['post', '/studio/samlinger', 'create_collection from a form'],
  ['post', '/studio/samlinger/{id}/tilgang', 'grant_access from a form (a new member, or a changed level)'],
  ['post', '/studio/samlinger/{id}/fjern', 'revoke_access from a form'],
  ['post', '/studio/system/jobber/{id}/{action}', 'retry_job (prov-igjen) or cancel_job (avbryt) from a form'],
  ['post', '/studio/system/regler', 'update_rule from a form'],
];
const ANSWERS_A_PAGE = new Set(['/studio/webhooks/ny', '/studio/webhooks/{id}/nytt-token', '/studio/webhooks/{id}/signering', '/studio/webhooks/{id}/gjengi', '/studio/publikasjoner/{id}/artikler', '/studio/publikasjoner/{id}/artikler/{node_id}']);

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
  router.use(loadSession({ sessions: deps.studio.sessions, identities: deps.identities, reads: deps.studio.reads }));
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
  installStudioHome(router, deps);
  installStudioWebhookManage(router, deps);
  installStudioWebhooks(router, deps);
  installStudioDeliveries(router, deps);
  installStudioPublications(router, deps);
  installStudioOrchestrations(router, deps);
  installStudioSystem(router, deps);
  installStudioCollections(router, deps);
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
