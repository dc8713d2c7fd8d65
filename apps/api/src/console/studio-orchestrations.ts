import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { AppError, isUuid } from '@inntak/core';
import { html, type Html } from '@inntak/publishing';
import {
  DEFAULT_ORCHESTRATIONS_PER_PERSON,
  listOrchestrationRuns,
  MAX_RUN_INPUT_BYTES,
  readOrchestration,
  readOrchestrationLog,
  rerunOrchestration,
  runOrchestration,
  setOrchestrationEnabled,
  updateOrchestration,
  type LogEntryView,
  type RunView,
} from '@inntak/orchestration';
import type { OrchestrationEntry } from '@inntak/studio';
import { storableText } from '../schemas.js';
import { EMPTY_FORM, errorSummary, field, FormRejected, handleForm, parseForm, valuesOf, type FormState } from './studio-forms.js';
import { actionButton, csrfField, layout, sendPage, timeTag, type StudioView } from './studio-html.js';
import { installNewOrchestration, placeScriptError, SCRIPT_HINT, type StudioOrchestrationFormDeps } from './studio-orchestration-forms.js';
import { studioCaller, viewOf } from './studio-session.js';

export interface StudioOrchestrationDeps extends StudioOrchestrationFormDeps {
  orchestrationRunsPerPerson?: number;
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

const NOTICES: Record<string, string> = {
  pa: 'Orkestreringen er slått på.',
  av: 'Orkestreringen er slått av: den matcher ingen hendelser og kjøringer i kø hoppes over.',
  opprettet: 'Orkestreringen er opprettet og slått på.',
  skript: 'Skriptet er lagret.',
  kjort: 'Kjøringen er lagt i kø.',
};

const SCRIPT_LABELS = { title: 'Navn', script: 'Skript' };
const ScriptChange = z.strictObject({ title: storableText(z.string().trim().min(1).max(1000)), script: storableText(z.string().min(1)) });
const RUN_LABELS = { input: 'Inndata (JSON-objekt)' };

/**
 * Orchestrations per collection; an orchestration's page: its script (update_orchestration),
 * enable/disable, a run with input (run_orchestration), its runs with each step's log row and
 * each retried attempt, and a re-run of a run (rerun_orchestration). Each form calls the API's
 * use case with the session's caller; refusals show on the form (studio-forms.ts).
 */
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
    const notice = typeof req.query.ok === 'string' ? NOTICES[req.query.ok] : undefined;
    const body = html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}<p><a href="/studio/orkestreringer/ny">Ny orkestrering</a></p>${sections.length ? sections : html`<p>Du administrerer ingen orkestreringer.</p>`}`;
    sendPage(res, 200, layout(view, 'Orkestreringer', body));
  });

  // Before /orkestreringer/:id, which would take «ny» for an id.
  installNewOrchestration(router, deps);

  /** The orchestration's page; `form` is a refused form (`skjema`: skript, kjor or kjoring) to show again on it. */
  async function orchestrationPage(req: Request, res: Response, id: string, form: FormState = EMPTY_FORM): Promise<Html> {
    const caller = studioCaller(res);
    const cursor = isUuid(req.query.cursor) ? req.query.cursor : undefined;
    // The API's use cases: admin on the orchestration (404/403 as GET /admin/orchestrations/{id}, …/runs and …/log).
    const orchestration = await readOrchestration(deps.orchestrationStore, caller, id);
    const runs = await listOrchestrationRuns(deps.orchestrationStore, caller, id, { limit: RUN_PAGE, before: cursor });
    const log = await readOrchestrationLog(deps.orchestrationStore, caller, id, { limit: LOG_ROWS });
    const view = viewOf(res);
    const which = form.values.skjema;
    const notice = typeof req.query.ok === 'string' && form === EMPTY_FORM ? NOTICES[req.query.ok] : undefined;
    const trigger = orchestration.trigger;
    const conditions = Object.entries(trigger?.conditions ?? {}).map(([k, v]) => `${k} = ${String(v)}`);
    const scriptForm = which === 'skript' ? form : EMPTY_FORM;
    const runForm = which === 'kjor' ? form : EMPTY_FORM;
    const base = `/studio/orkestreringer/${id}`;
    const body = html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<p><a href="/studio/orkestreringer">Alle orkestreringer</a></p>
<div>Utløses av ${trigger?.event ?? '–'}${conditions.length ? ` (${conditions.join(', ')})` : ''}${trigger?.cron ? `, tidsplan ${trigger.cron} (UTC)` : ''}; ${orchestration.enabled ? 'på' : 'slått av'}. ${toggle(view, id, orchestration.title, orchestration.enabled, base)}</div>
<section aria-labelledby="skript"><h2 id="skript">Skript</h2>
${errorSummary(scriptForm)}
<form method="post" action="${base}/skript">${csrfField(view)}<input type="hidden" name="skjema" value="skript">
${field(scriptForm, { name: 'title', label: SCRIPT_LABELS.title, required: true, maxlength: 1000, value: orchestration.title ?? '' })}
${field(scriptForm, { name: 'script', label: SCRIPT_LABELS.script, type: 'textarea', required: true, rows: 16, value: orchestration.script, hint: html`${SCRIPT_HINT} Lagrer du, kjører den som deg.` })}
<p><button type="submit">Lagre skriptet</button></p></form></section>
${
  trigger?.event === 'manual'
    ? html`<section aria-labelledby="kjor"><h2 id="kjor">Kjør nå</h2>
${errorSummary(runForm)}
<form method="post" action="${base}/kjor">${csrfField(view)}<input type="hidden" name="skjema" value="kjor">
${field(runForm, { name: 'input', label: RUN_LABELS.input, type: 'textarea', rows: 4, value: '{}', hint: html`I skriptet som <code>{event.input.navn}</code>; høyst ${MAX_RUN_INPUT_BYTES / 1024} KB.` })}
<p><button type="submit">Kjør</button></p></form></section>`
    : ''
}
<section aria-labelledby="kjoringer"><h2 id="kjoringer">Kjøringer</h2>
${which === 'kjoring' ? errorSummary(form) : ''}
${runs.runs.length ? runs.runs.map((run) => runSection(view, base, run, log.entries.filter((e) => run.job_id !== null && e.job_id === run.job_id))) : html`<p>Ingen kjøringer ennå.</p>`}
${orphanRows(log.entries.filter((e) => e.job_id === null || !runs.runs.some((r) => r.job_id === e.job_id)), runs.next_cursor !== null || cursor !== undefined)}
${runs.next_cursor ? html`<p><a href="${base}?cursor=${runs.next_cursor}">Eldre kjøringer</a></p>` : ''}</section>`;
    return layout(view, orchestration.title ?? 'Orkestrering', body);
  }

  router.get('/orkestreringer/:id', async (req, res) => {
    sendPage(res, 200, await orchestrationPage(req, res, orchestrationId(req.params.id)));
  });

  router.post('/orkestreringer/:id/aktiv', async (req, res) => {
    const id = orchestrationId(req.params.id);
    const form = req.body as Record<string, unknown>;
    const enabled = form.enabled === 'true';
    await setOrchestrationEnabled(deps.orchestrationStore, studioCaller(res), id, enabled);
    const back = form.tilbake === `/studio/orkestreringer/${id}` ? form.tilbake : '/studio/orkestreringer';
    res.redirect(303, `${back}?ok=${enabled ? 'pa' : 'av'}`);
  });

  router.post('/orkestreringer/:id/skript', async (req, res) => {
    const id = orchestrationId(req.params.id);
    const values: Record<string, string> = { ...valuesOf(req.body), skjema: 'skript' };
    await handleForm(res, values, (state) => orchestrationPage(req, res, id, state), async () => {
      const body = parseForm(ScriptChange, { title: values.title ?? '', script: values.script ?? '' }, SCRIPT_LABELS, values);
      try {
        await updateOrchestration(deps.orchestrationStore, studioCaller(res), id, { script: body.script, title: body.title }, deps.orchestrationsPerPerson ?? DEFAULT_ORCHESTRATIONS_PER_PERSON);
      } catch (thrown) {
        placeScriptError(thrown, values);
      }
      res.redirect(303, `/studio/orkestreringer/${id}?ok=skript`);
    });
  });

  router.post('/orkestreringer/:id/kjor', async (req, res) => {
    const id = orchestrationId(req.params.id);
    const values: Record<string, string> = { ...valuesOf(req.body), skjema: 'kjor' };
    await handleForm(res, values, (state) => orchestrationPage(req, res, id, state), async () => {
      const input = jsonObject(values.input ?? '', values);
      await runOrchestration(deps.orchestrationStore, studioCaller(res), id, input, deps.orchestrationRunsPerPerson);
      res.redirect(303, `/studio/orkestreringer/${id}?ok=kjort#kjoringer`);
    });
  });

  router.post('/orkestreringer/:id/kjoringer/:run', async (req, res) => {
    const id = orchestrationId(req.params.id);
    const runId = orchestrationId(req.params.run);
    const values: Record<string, string> = { ...valuesOf(req.body), skjema: 'kjoring' };
    await handleForm(res, values, (state) => orchestrationPage(req, res, id, state), async () => {
      await rerunOrchestration(deps.orchestrationStore, studioCaller(res), runId, deps.orchestrationRunsPerPerson, values.fra === 'steg' ? 'failed_step' : 'start');
      res.redirect(303, `/studio/orkestreringer/${id}?ok=kjort#kjoringer`);
    });
  });
}

/** The run form's input: a JSON object (an empty field is `{}`), or the field named with what is wrong. */
function jsonObject(text: string, values: Record<string, string>): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new FormRejected({ values, errors: { input: `«${RUN_LABELS.input}» er ikke gyldig JSON: ${(error as Error).message}` } });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new FormRejected({ values, errors: { input: `«${RUN_LABELS.input}» må være et JSON-objekt, som {"navn": "verdi"}.` } });
  return parsed as Record<string, unknown>;
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

function runSection(view: StudioView, base: string, run: RunView, entries: LogEntryView[]) {
  const heading = `kjoring-${run.id}`;
  const ended = run.status !== 'queued' && run.status !== 'running';
  const when = run.created_at;
  return html`<section aria-labelledby="${heading}"><h3 id="${heading}">Kjøring ${timeTag(when)}: ${RUN_STATUS[run.status] ?? run.status}</h3>
<p>Hendelse ${run.event.type} ${run.event.id}${run.duration_ms !== null ? `; ${run.duration_ms} ms` : ''}${run.failed_step !== null ? `; feilet på steg ${run.failed_step}` : ''}${run.rerun_of ? `; ny kjøring av en tidligere, fra steg ${run.from_step}` : ''}${run.job_id !== null ? `; jobb ${run.job_id}` : ''}.</p>
${run.event.input && Object.keys(run.event.input).length ? html`<p>Inndata: <code>${JSON.stringify(run.event.input)}</code></p>` : ''}
${attemptList(run)}
${
  ended
    ? html`<div class="row">${actionButton(view, `${base}/kjoringer/${run.id}`, html`Kjør på nytt<span class="vh"> kjøringen ${formatShort(when)}</span>`, { fra: 'start' })}
${run.status === 'stopped' && run.failed_step !== null ? actionButton(view, `${base}/kjoringer/${run.id}`, html`Kjør igjen fra steg ${run.failed_step}<span class="vh"> (kjøringen ${formatShort(when)})</span>`, { fra: 'steg' }) : ''}</div>`
    : ''
}
${
  entries.length
    ? html`<div class="scroll" role="region" tabindex="0" aria-label="Tabell (kan rulles sideveis)"><table><caption>Loggen, én rad per steg, nyeste først</caption>${STEP_HEAD}<tbody>${stepRows(entries)}</tbody></table></div>`
    : html`<p>Ingen loggrader for denne kjøringen.</p>`
}</section>`;
}

/** The attempts: each retried attempt that failed (039), and a worker lost under the run (033). */
function attemptList(run: RunView) {
  const tries = run.attempts.length + (run.status === 'queued' && run.attempts.length === 0 ? 0 : 1);
  if (run.attempts.length === 0 && run.lost_workers === 0) return html`<p>Forsøk: ${tries}.</p>`;
  return html`<p>Forsøk: ${tries}${run.lost_workers ? `; tatt opp igjen ${run.lost_workers} gang${run.lost_workers === 1 ? '' : 'er'} etter at arbeideren stoppet` : ''}.</p>
${run.attempts.length ? html`<ul>${run.attempts.map((a) => html`<li>${timeTag(a.at)}: steg ${a.step}, forsøk ${a.attempt}${a.index !== undefined ? `, element ${a.index}` : ''} feilet (jobb ${a.job_id}): ${a.error}</li>`)}</ul>` : ''}`;
}

function formatShort(at: string): string {
  return at.slice(0, 19).replace('T', ' ');
}

/** Log rows no run on this page names (older runs, or rows written before runs were recorded). */
function orphanRows(entries: LogEntryView[], paged: boolean) {
  if (entries.length === 0) return '';
  return html`<section aria-labelledby="andre-rader"><h3 id="andre-rader">${paged ? 'Loggrader for andre kjøringer' : 'Loggrader uten kjøring'}</h3>
<div class="scroll" role="region" tabindex="0" aria-label="Tabell (kan rulles sideveis)"><table><caption>Nyeste først</caption>${STEP_HEAD}<tbody>${stepRows(entries)}</tbody></table></div></section>`;
}
