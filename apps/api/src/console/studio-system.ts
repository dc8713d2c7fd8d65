import type { Request, Response, Router } from 'express';
import { AppError } from '@inntak/core';
import { cancelJob, DEFAULT_LIMITS, diskStatus, JOB_STATUSES, listJobs, resourceStatus, retryJob, updateRule, type JobRule, type JobStatus } from '@inntak/jobs';
import { html, type Html } from '@inntak/publishing';
import { lineChart } from '@inntak/studio';
import type { JobAdminDeps } from '../rest/job-admin.js';
import { UpdateRuleBody, ruleChangeOf } from '../schemas.js';
import { EMPTY_FORM, errorSummary, field, handleForm, parseForm, valuesOf, type FormState } from './studio-forms.js';
import { actionButton, csrfField, layout, sendPage, timeTag, type StudioView } from './studio-html.js';
import { studioCaller, viewOf } from './studio-session.js';

export interface StudioSystemDeps {
  jobAdmin: JobAdminDeps;
}

const JOB_PAGE = 50;
const DISK_HISTORY = 500;
const STATUS_NAMES: Record<JobStatus, string> = { queued: 'i kø', running: 'kjører', completed: 'fullført', failed: 'feilet', cancelled: 'avbrutt' };
/** The rule form's number fields, with update_rule's bounds (UpdateRuleBody) as min and max. */
const RULE_FIELDS: Array<[key: keyof JobRule, form: string, label: string, min: number, max: number]> = [
  ['basePriority', 'base_priority', 'Grunnprioritet', -32767, 32767],
  ['cpuWeight', 'cpu_weight', 'CPU-vekt', 0, DEFAULT_LIMITS.maxWeight],
  ['maxConcurrent', 'max_concurrent', 'Maks samtidige', 0, DEFAULT_LIMITS.maxRunning],
  ['livekitPriorityAdj', 'livekit_priority_adj', 'Justering under direktesending', -32767, 32767],
  ['timeoutSeconds', 'timeout', 'Tidsavbrudd (sekunder)', 1, 86400],
];
const RULE_LABELS: Record<string, string> = { job_type: 'Jobbtype', block_during_livekit: 'Stopp under direktesending', ...Object.fromEntries(RULE_FIELDS.map(([, name, label]) => [name, label])) };

/** System administrators: jobs (retry, cancel), resources with the disk history, priority rules (update_rule). */
export function installStudioSystem(router: Router, deps: StudioSystemDeps): void {
  const { store } = deps.jobAdmin;

  /** The page; `form` is a refused rule form to show again on it. */
  async function systemPage(req: Request, res: Response, form?: FormState): Promise<Html> {
    const caller = studioCaller(res);
    const status = (JOB_STATUSES as readonly unknown[]).includes(req.query.status) ? (req.query.status as JobStatus) : undefined;
    const cursor = /^\d{1,15}$/.test(String(req.query.cursor ?? '')) ? Number(req.query.cursor) : undefined;
    // Each use case refuses anyone but a system administrator (403), as the API's routes.
    const jobs = await listJobs(store, caller, { status, limit: JOB_PAGE, before: cursor });
    const [resources, disk] = await Promise.all([resourceStatus(store, caller, deps.jobAdmin.liveRooms), diskStatus(store, caller, DISK_HISTORY)]);
    const view = viewOf(res);
    const notice = req.query.ok === 'regel' ? 'Regelen er lagret; arbeiderne bruker den uten omstart.' : req.query.ok === 'jobb' ? 'Jobben er oppdatert.' : undefined;
    return layout(
      view,
      'System',
      html`${notice && !form ? html`<p class="notice" role="status">${notice}</p>` : ''}
${jobsSection(view, jobs, status)}
<section aria-labelledby="ressurser"><h2 id="ressurser">Ressurser</h2>
<p>${resources.running.length} jobber kjører; direktesending ${resources.liveRoom.active ? 'pågår' : 'pågår ikke'}; ${resources.workers.length} arbeiderprosesser.</p>
<p>Disk nå: ${disk.current ? `${disk.current.used_percent.toFixed(1)} % brukt (${disk.current.level}), målt ` : 'ingen måling ennå'}${disk.current ? timeTag(disk.current.measured_at) : ''}</p>
${lineChart({
  id: 'disk',
  title: 'Diskbruk over tid',
  description: `Brukt andel av disken, ${disk.history.length} målinger; terskler 85, 90 og 95 %.`,
  series: [{ label: 'Brukt (%)', points: [...disk.history].reverse().map((m) => ({ x: m.measured_at, y: m.used_percent })) }],
  formatY: (y) => `${y.toFixed(0)} %`,
  yMax: 100,
})}</section>
${rulesSection(view, resources.rules, form)}`,
    );
  }

  router.get('/system', async (req, res) => {
    sendPage(res, 200, await systemPage(req, res));
  });

  router.post('/system/jobber/:id/:action', async (req, res) => {
    const id = /^\d{1,15}$/.test(String(req.params.id)) ? Number(req.params.id) : undefined;
    const act = req.params.action === 'prov-igjen' ? retryJob : req.params.action === 'avbryt' ? cancelJob : undefined;
    if (id === undefined || !act) throw new AppError('not_found', { detail: 'jobb' });
    await act(store, studioCaller(res), id);
    res.redirect(303, '/studio/system?ok=jobb');
  });

  router.post('/system/regler', async (req, res) => {
    const values = valuesOf(req.body);
    // A refused form is the system page again, with the error beside the rule's field.
    await handleForm(res, values, (state) => systemPage(req, res, state), async () => {
      const number = (name: string) => {
        const raw = values[name]?.trim();
        return raw === undefined || raw === '' ? undefined : /^-?\d+(?:\.\d+)?$/.test(raw) ? Number(raw) : raw;
      };
      // update_rule's own body schema: the API's bounds, told per field in plain Norwegian.
      const body = parseForm(
        UpdateRuleBody,
        { job_type: values.job_type ?? '', ...Object.fromEntries(RULE_FIELDS.map(([, name]) => [name, number(name)])), block_during_livekit: values.block_during_livekit === 'on' },
        RULE_LABELS,
        values,
      );
      await updateRule(store, studioCaller(res), ruleChangeOf(body));
      res.redirect(303, '/studio/system?ok=regel');
    });
  });
}

function jobsSection(view: StudioView, jobs: Awaited<ReturnType<typeof listJobs>>, status: JobStatus | undefined) {
  const counts = JOB_STATUSES.map((s) => html`<li><a href="/studio/system?status=${s}"${s === status ? html` aria-current="page"` : ''}>${STATUS_NAMES[s]}: ${jobs.counts[s] ?? 0}</a></li>`);
  const rows = jobs.jobs.map(
    (j) => html`<tr><td>${j.id}</td><td>${j.job_type}</td><td>${STATUS_NAMES[j.status]}</td><td>${j.attempts}/${j.max_attempts}</td><td>${timeTag(j.queued_at)}</td><td>${j.last_error ?? ''}</td>
<td>${j.status === 'failed' || j.status === 'cancelled' ? actionButton(view, `/studio/system/jobber/${j.id}/prov-igjen`, html`Prøv igjen<span class="vh"> jobb ${j.id}</span>`) : ''}
${j.status === 'queued' || j.status === 'running' ? actionButton(view, `/studio/system/jobber/${j.id}/avbryt`, html`Avbryt<span class="vh"> jobb ${j.id}</span>`) : ''}</td></tr>`,
  );
  const next = jobs.next_cursor ? html`<p><a href="/studio/system?${new URLSearchParams({ ...(status ? { status } : {}), cursor: String(jobs.next_cursor) }).toString()}">Eldre jobber</a></p>` : '';
  return html`<section aria-labelledby="jobber"><h2 id="jobber">Jobber</h2>
<nav aria-label="Jobber etter status"><ul class="legend"><li><a href="/studio/system">alle</a></li>${counts}</ul></nav>
${rows.length ? html`<div class="scroll" role="region" tabindex="0" aria-label="Tabell (kan rulles sideveis)"><table><caption>Nyeste først</caption><thead><tr><th scope="col">Id</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Forsøk</th><th scope="col">Lagt i kø</th><th scope="col">Siste feil</th><th scope="col">Handling</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p>Ingen jobber.</p>`}
${next}</section>`;
}

function rulesSection(view: StudioView, rules: JobRule[], form?: FormState) {
  const ruleForm = (rule: JobRule) => {
    const id = (name: string) => `${name}-${rule.jobType}`;
    // Only the form that was posted shows its errors and posted values.
    const state = form?.values.job_type === rule.jobType ? form : EMPTY_FORM;
    return html`<form method="post" action="/studio/system/regler"><fieldset><legend>${rule.jobType}</legend>${csrfField(view)}<input type="hidden" name="job_type" value="${rule.jobType}">
${errorSummary(state, Object.fromEntries(RULE_FIELDS.map(([, name]) => [name, id(name)])))}
<div class="row">${RULE_FIELDS.map(([key, name, label, min, max]) => field(state, { name, id: id(name), label, type: 'number', min, max, required: true, value: String(rule[key]) }))}
<div class="field"><input type="checkbox" id="${id('block')}" name="block_during_livekit"${(form === state ? state.values.block_during_livekit === 'on' : rule.blockDuringLivekit) ? html` checked` : ''}> <label for="${id('block')}" style="display:inline">Stopp under direktesending</label></div>
<button type="submit">Lagre<span class="vh"> ${rule.jobType}</span></button></div></fieldset></form>`;
  };
  return html`<section aria-labelledby="regler"><h2 id="regler">Prioritetsregler</h2>${rules.map(ruleForm)}</section>`;
}
