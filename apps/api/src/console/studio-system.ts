import type { Router } from 'express';
import { AppError } from '@inntak/core';
import { cancelJob, diskStatus, JOB_STATUSES, listJobs, resourceStatus, retryJob, updateRule, type JobRule, type JobStatus } from '@inntak/jobs';
import { html } from '@inntak/publishing';
import { lineChart } from '@inntak/studio';
import type { JobAdminDeps } from '../rest/job-admin.js';
import { actionButton, csrfField, layout, sendPage, timeTag, type StudioView } from './studio-html.js';
import { studioCaller, viewOf } from './studio-session.js';

export interface StudioSystemDeps {
  jobAdmin: JobAdminDeps;
}

const JOB_PAGE = 50;
const DISK_HISTORY = 500;
const STATUS_NAMES: Record<JobStatus, string> = { queued: 'i kø', running: 'kjører', completed: 'fullført', failed: 'feilet', cancelled: 'avbrutt' };
const RULE_FIELDS: Array<[key: keyof JobRule, form: string, label: string]> = [
  ['basePriority', 'base_priority', 'Grunnprioritet'],
  ['cpuWeight', 'cpu_weight', 'CPU-vekt'],
  ['maxConcurrent', 'max_concurrent', 'Maks samtidige'],
  ['livekitPriorityAdj', 'livekit_priority_adj', 'Justering under direktesending'],
  ['timeoutSeconds', 'timeout', 'Tidsavbrudd (s)'],
];

/** System administrators: jobs (retry, cancel), resources with the disk history, priority rules (update_rule). */
export function installStudioSystem(router: Router, deps: StudioSystemDeps): void {
  const { store } = deps.jobAdmin;

  router.get('/system', async (req, res) => {
    const caller = studioCaller(res);
    const status = (JOB_STATUSES as readonly unknown[]).includes(req.query.status) ? (req.query.status as JobStatus) : undefined;
    const cursor = /^\d{1,15}$/.test(String(req.query.cursor ?? '')) ? Number(req.query.cursor) : undefined;
    // Each use case refuses anyone but a system administrator (403), as the API's routes.
    const jobs = await listJobs(store, caller, { status, limit: JOB_PAGE, before: cursor });
    const [resources, disk] = await Promise.all([resourceStatus(store, caller, deps.jobAdmin.liveRooms), diskStatus(store, caller, DISK_HISTORY)]);
    const view = viewOf(res);
    const notice = req.query.ok === 'regel' ? 'Regelen er lagret; arbeiderne bruker den uten omstart.' : req.query.ok === 'jobb' ? 'Jobben er oppdatert.' : undefined;
    sendPage(
      res,
      200,
      layout(
        view,
        'System',
        html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
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
${rulesSection(view, resources.rules)}`,
      ),
    );
  });

  router.post('/system/jobber/:id/:action', async (req, res) => {
    const id = /^\d{1,15}$/.test(String(req.params.id)) ? Number(req.params.id) : undefined;
    const act = req.params.action === 'prov-igjen' ? retryJob : req.params.action === 'avbryt' ? cancelJob : undefined;
    if (id === undefined || !act) throw new AppError('not_found', { detail: 'jobb' });
    await act(store, studioCaller(res), id);
    res.redirect(303, '/studio/system?ok=jobb');
  });

  router.post('/system/regler', async (req, res) => {
    const form = req.body as Record<string, unknown>;
    const number = (name: string) => {
      const raw = form[name];
      if (raw === undefined || raw === '') return undefined;
      if (typeof raw !== 'string' || !/^-?\d{1,6}$/.test(raw.trim())) throw new AppError('invalid_input', { detail: `${name}: forventet et heltall` });
      return Number(raw);
    };
    const jobType = typeof form.job_type === 'string' ? form.job_type : '';
    if (!/^[a-z][a-z0-9_]{0,62}$/.test(jobType)) throw new AppError('invalid_input', { detail: 'job_type' });
    await updateRule(store, studioCaller(res), {
      jobType,
      basePriority: number('base_priority'),
      cpuWeight: number('cpu_weight'),
      maxConcurrent: number('max_concurrent'),
      livekitPriorityAdj: number('livekit_priority_adj'),
      blockDuringLivekit: form.block_during_livekit === 'on',
      timeoutSeconds: number('timeout'),
    });
    res.redirect(303, '/studio/system?ok=regel');
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

function rulesSection(view: StudioView, rules: JobRule[]) {
  const ruleForm = (rule: JobRule) => {
    const id = (name: string) => `${name}-${rule.jobType}`;
    return html`<form method="post" action="/studio/system/regler"><fieldset><legend>${rule.jobType}</legend>${csrfField(view)}<input type="hidden" name="job_type" value="${rule.jobType}">
<div class="row">${RULE_FIELDS.map(([key, name, label]) => html`<div><label for="${id(name)}">${label}</label><input id="${id(name)}" name="${name}" inputmode="numeric" size="7" value="${String(rule[key])}"></div>`)}
<div><input type="checkbox" id="${id('block')}" name="block_during_livekit"${rule.blockDuringLivekit ? html` checked` : ''}> <label for="${id('block')}" style="display:inline">Stopp under direktesending</label></div>
<button type="submit">Lagre<span class="vh"> ${rule.jobType}</span></button></div></fieldset></form>`;
  };
  return html`<section aria-labelledby="regler"><h2 id="regler">Prioritetsregler</h2>${rules.map(ruleForm)}</section>`;
}
