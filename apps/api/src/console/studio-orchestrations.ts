import type { Router } from 'express';
import { AppError, isUuid } from '@inntak/core';
import { html } from '@inntak/publishing';
import { listOrchestrationRuns, readOrchestrationLog, setOrchestrationEnabled, type LogEntryView, type OrchestrationStore, type RunView } from '@inntak/orchestration';
import type { OrchestrationEntry, StudioReads } from '@inntak/studio';
import { actionButton, layout, sendPage, timeTag, type StudioView } from './studio-html.js';
import { studioCaller, viewOf } from './studio-session.js';

export interface StudioOrchestrationDeps {
  orchestrationStore: OrchestrationStore;
  studio: { reads: StudioReads };
}

const RUN_PAGE = 20;
/** Log rows read with a page of runs: enough for 20 runs of the longest scripts in practice, bounded. */
const LOG_ROWS = 200;
const RUN_STATUS: Record<string, string> = {
  queued: 'i kø',
  running: 'kjører',
  completed: 'fullført',
  filtered: 'filtrert bort',
  stopped: 'stoppet',
  failed: 'feilet',
  skipped: 'hoppet over',
};

function orchestrationId(raw: unknown): string {
  if (!isUuid(raw)) throw new AppError('not_found', { detail: 'id' });
  return raw;
}

/** Orchestrations per collection, their runs with each step's log row, enable/disable (issue 27's intention). */
export function installStudioOrchestrations(router: Router, deps: StudioOrchestrationDeps): void {
  router.get('/orkestreringer', async (req, res) => {
    const view = viewOf(res);
    const all = await deps.studio.reads.orchestrations(studioCaller(res), 500);
    const byCollection = new Map<string, OrchestrationEntry[]>();
    for (const o of all) byCollection.set(o.collectionId ?? 'ingen', [...(byCollection.get(o.collectionId ?? 'ingen') ?? []), o]);
    const sections = [...byCollection].map(
      ([key, list]) => html`<section aria-labelledby="s-${key}"><h2 id="s-${key}">${key === 'ingen' ? 'Uten samling' : (list[0]!.collectionTitle ?? 'Samling uten navn')}</h2>
<ul>${list.map((o) => html`<li><a href="/studio/orkestreringer/${o.id}">${o.title ?? 'Uten navn'}</a>: utløses av ${o.trigger ?? '–'}; ${o.enabled ? 'på' : 'slått av'} ${toggle(view, o.id, o.title, o.enabled, '/studio/orkestreringer')}</li>`)}</ul></section>`,
    );
    const notice = req.query.ok === 'pa' ? 'Orkestreringen er slått på.' : req.query.ok === 'av' ? 'Orkestreringen er slått av: den matcher ingen hendelser og kjøringer i kø hoppes over.' : undefined;
    const body = html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}${sections.length ? sections : html`<p>Du administrerer ingen orkestreringer.</p>`}`;
    sendPage(res, 200, layout(view, 'Orkestreringer', body));
  });

  router.get('/orkestreringer/:id', async (req, res) => {
    const id = orchestrationId(req.params.id);
    const caller = studioCaller(res);
    const cursor = isUuid(req.query.cursor) ? req.query.cursor : undefined;
    // The API's use cases: admin on the orchestration (404/403 as GET /admin/orchestrations/{id}/runs and /log).
    const runs = await listOrchestrationRuns(deps.orchestrationStore, caller, id, { limit: RUN_PAGE, before: cursor });
    const log = await readOrchestrationLog(deps.orchestrationStore, caller, id, { limit: LOG_ROWS });
    const entry = (await deps.studio.reads.orchestrations(caller, 500)).find((o) => o.id === id);
    const view = viewOf(res);
    const body = html`<p><a href="/studio/orkestreringer">Alle orkestreringer</a></p>
${entry ? html`<div>Utløses av ${entry.trigger ?? '–'}; ${entry.enabled ? 'på' : 'slått av'}. ${toggle(view, id, entry.title, entry.enabled, `/studio/orkestreringer/${id}`)}</div>` : ''}
${runs.runs.length ? runs.runs.map((run) => runSection(run, log.entries.filter((e) => run.job_id !== null && e.job_id === run.job_id))) : html`<p>Ingen kjøringer ennå.</p>`}
${orphanRows(log.entries.filter((e) => e.job_id === null || !runs.runs.some((r) => r.job_id === e.job_id)), runs.next_cursor !== null || cursor !== undefined)}
${runs.next_cursor ? html`<p><a href="/studio/orkestreringer/${id}?cursor=${runs.next_cursor}">Eldre kjøringer</a></p>` : ''}`;
    sendPage(res, 200, layout(view, entry?.title ?? 'Kjøringer', body));
  });

  router.post('/orkestreringer/:id/aktiv', async (req, res) => {
    const id = orchestrationId(req.params.id);
    const form = req.body as Record<string, unknown>;
    const enabled = form.enabled === 'true';
    await setOrchestrationEnabled(deps.orchestrationStore, studioCaller(res), id, enabled);
    const back = form.tilbake === `/studio/orkestreringer/${id}` ? form.tilbake : '/studio/orkestreringer';
    res.redirect(303, `${back}?ok=${enabled ? 'pa' : 'av'}`);
  });
}

function toggle(view: StudioView, id: string, title: string | null, enabled: boolean, back: string) {
  return actionButton(view, `/studio/orkestreringer/${id}/aktiv`, html`${enabled ? 'Slå av' : 'Slå på'}<span class="vh"> ${title ?? id}</span>`, { enabled: String(!enabled), tilbake: back });
}

function stepRows(entries: LogEntryView[]) {
  return entries.map(
    (e) => html`<tr><td>${timeTag(e.at)}</td><td>${e.step ?? ''}</td><td>${e.action ?? ''}${e.fallback ? ` (reserve: ${e.fallback})` : ''}</td><td>${e.status}</td><td>${e.duration_ms} ms</td><td>${e.error ?? ''}</td></tr>`,
  );
}

const STEP_HEAD = html`<thead><tr><th scope="col">Tid</th><th scope="col">Steg</th><th scope="col">Handling</th><th scope="col">Status</th><th scope="col">Varighet</th><th scope="col">Feil</th></tr></thead>`;

function runSection(run: RunView, entries: LogEntryView[]) {
  const heading = `kjoring-${run.id}`;
  return html`<section aria-labelledby="${heading}"><h2 id="${heading}">Kjøring ${timeTag(run.created_at)}: ${RUN_STATUS[run.status] ?? run.status}</h2>
<p>Hendelse ${run.event.type} ${run.event.id}${run.duration_ms !== null ? `; ${run.duration_ms} ms` : ''}${run.failed_step !== null ? `; feilet på steg ${run.failed_step}` : ''}${run.rerun_of ? `; ny kjøring fra steg ${run.from_step}` : ''}.</p>
${
  entries.length
    ? html`<div class="scroll" role="region" tabindex="0" aria-label="Tabell (kan rulles sideveis)"><table><caption>Loggen, én rad per steg, nyeste først</caption>${STEP_HEAD}<tbody>${stepRows(entries)}</tbody></table></div>`
    : html`<p>Ingen loggrader for denne kjøringen.</p>`
}</section>`;
}

/** Log rows no run on this page names (older runs, or rows written before runs were recorded). */
function orphanRows(entries: LogEntryView[], paged: boolean) {
  if (entries.length === 0) return '';
  return html`<section aria-labelledby="andre-rader"><h2 id="andre-rader">${paged ? 'Loggrader for andre kjøringer' : 'Loggrader uten kjøring'}</h2>
<div class="scroll" role="region" tabindex="0" aria-label="Tabell (kan rulles sideveis)"><table><caption>Nyeste først</caption>${STEP_HEAD}<tbody>${stepRows(entries)}</tbody></table></div></section>`;
}
