import type { Response, Router } from 'express';
import { AppError } from '@inntak/core';
import type { Caller } from '@inntak/access';
import { html } from '@inntak/publishing';
import { readOrchestrationLog, type OrchestrationStore } from '@inntak/orchestration';
import type { OrchestrationEntry, StudioReads } from '@inntak/studio';
import { layout, sendPage, timeTag } from './studio-html.js';
import { studioOf, viewOf } from './studio-session.js';

export interface StudioOrchestrationDeps {
  orchestrationStore: OrchestrationStore;
  studio: { reads: StudioReads };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOG_PAGE = 50;

function callerOf(res: Response): Caller {
  return studioOf(res)!.caller;
}

/**
 * Orchestrations per collection and their runs, read-only: enabling and disabling an
 * orchestration is issue 27's intention, not in this branch yet (docs/studio.md).
 */
export function installStudioOrchestrations(router: Router, deps: StudioOrchestrationDeps): void {
  router.get('/orkestreringer', async (_req, res) => {
    const all = await deps.studio.reads.orchestrations(callerOf(res), 500);
    const byCollection = new Map<string, OrchestrationEntry[]>();
    for (const o of all) byCollection.set(o.collectionId ?? 'ingen', [...(byCollection.get(o.collectionId ?? 'ingen') ?? []), o]);
    const sections = [...byCollection].map(
      ([key, list]) => html`<section aria-labelledby="s-${key}"><h2 id="s-${key}">${key === 'ingen' ? 'Uten samling' : (list[0]!.collectionTitle ?? 'Samling uten navn')}</h2>
<ul>${list.map((o) => html`<li><a href="/studio/orkestreringer/${o.id}">${o.title ?? 'Uten navn'}</a>: utløses av ${o.trigger ?? '–'}${o.enabled ? '' : ' (slått av)'}</li>`)}</ul></section>`,
    );
    const body = html`<p>Kjøringene vises her; å slå en orkestrering av og på kommer med issue 27.</p>${sections.length ? sections : html`<p>Du administrerer ingen orkestreringer.</p>`}`;
    sendPage(res, 200, layout(viewOf(res), 'Orkestreringer', body));
  });

  router.get('/orkestreringer/:id', async (req, res) => {
    const id = typeof req.params.id === 'string' && UUID.test(req.params.id) ? req.params.id : undefined;
    if (!id) throw new AppError('not_found', { detail: 'id' });
    const cursor = /^\d{1,15}$/.test(String(req.query.cursor ?? '')) ? Number(req.query.cursor) : undefined;
    // The API's use case: admin on the orchestration (404/403 as GET /admin/orchestrations/{id}/log).
    const log = await readOrchestrationLog(deps.orchestrationStore, callerOf(res), id, { limit: LOG_PAGE, before: cursor });
    const rows = log.entries.map(
      (e) => html`<tr><td>${timeTag(e.at)}</td><td>${e.job_id ?? ''}</td><td>${e.event.type} ${e.event.id}</td><td>${e.step ?? ''}</td><td>${e.action ?? ''}${e.fallback ? ` (reserve: ${e.fallback})` : ''}</td><td>${e.status}</td><td>${e.duration_ms} ms</td><td>${e.error ?? ''}</td></tr>`,
    );
    const body = html`<p><a href="/studio/orkestreringer">Alle orkestreringer</a></p>
${
  rows.length
    ? html`<div class="scroll" role="region" tabindex="0" aria-label="Tabell (kan rulles sideveis)"><table><caption>Logg, nyeste først: én rad per steg (kjøringene grupperes på jobb)</caption><thead><tr><th scope="col">Tid</th><th scope="col">Jobb</th><th scope="col">Hendelse</th><th scope="col">Steg</th><th scope="col">Handling</th><th scope="col">Status</th><th scope="col">Varighet</th><th scope="col">Feil</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p>Ingen kjøringer ennå.</p>`
}
${log.next_cursor ? html`<p><a href="/studio/orkestreringer/${id}?cursor=${log.next_cursor}">Eldre</a></p>` : ''}`;
    sendPage(res, 200, layout(viewOf(res), 'Kjøringer', body));
  });
}
