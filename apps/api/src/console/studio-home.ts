import type { Router } from 'express';
import type { AbResultsStore } from '@inntak/ab-testing';
import { html } from '@inntak/publishing';
import { ATTENTION, whatNeedsAttention, type Attention, type StudioReads } from '@inntak/studio';
import type { JobAdminDeps } from '../rest/job-admin.js';
import { layout, sendPage, timeTag, type StudioView } from './studio-html.js';
import { studioCaller, viewOf } from './studio-session.js';

export interface StudioHomeDeps {
  studio: { reads: StudioReads };
  abResults: AbResultsStore;
  jobAdmin: JobAdminDeps;
}

const count = (n: number, one: string, many: string) => `${n.toLocaleString('nb-NO')} ${n === 1 ? one : many}`;

/** GET /studio: what needs the person's attention (whatNeedsAttention), then the way on. */
export function installStudioHome(router: Router, deps: StudioHomeDeps): void {
  router.get('/', async (_req, res) => {
    const caller = studioCaller(res);
    const attention = await whatNeedsAttention({ reads: deps.studio.reads, abResults: deps.abResults, jobs: deps.jobAdmin.store }, caller);
    const view = viewOf(res);
    sendPage(res, 200, layout(view, 'Oversikt', html`${attentionSections(attention)}${shortcuts(view)}`));
  });
}

function attentionSections(a: Attention) {
  if (a.calm) {
    const jobs = a.failedJobs ? ', ingen feilede jobber' : '';
    return html`<section aria-labelledby="status"><h2 id="status">Status</h2>
<p class="notice" role="status"><strong>Alt ser bra ut.</strong> Ingen webhooks med feil det siste døgnet, ingen tester som venter på en avgjørelse${jobs}.</p></section>`;
  }
  return html`<section aria-labelledby="oppmerksomhet" class="attention"><h2 id="oppmerksomhet">Trenger oppmerksomhet</h2>
${a.webhooks.total ? webhookPart(a) : ''}${a.tests.total ? testPart(a) : ''}${a.failedJobs?.total ? jobPart(a.failedJobs) : ''}</section>`;
}

function webhookPart(a: Attention) {
  const items = a.webhooks.list.map((w) => {
    const parts = [w.refused ? count(w.refused, 'avvist forespørsel', 'avviste forespørsler') : '', w.failed ? count(w.failed, 'feilet levering', 'feilede leveranser') : ''].filter(Boolean).join(' og ');
    return html`<li><a href="/studio/webhooks/${w.id}?status=failed">${w.title ?? 'Uten navn'}</a>: ${parts}, sist ${timeTag(w.lastAt)}</li>`;
  });
  return html`<h3>Webhooks med feil det siste døgnet</h3>
<ul>${items}</ul>${a.webhooks.total > a.webhooks.list.length ? html`<p>Og ${count(a.webhooks.total - a.webhooks.list.length, 'webhook', 'webhooks')} til under <a href="/studio/webhooks">Webhooks</a>.</p>` : ''}`;
}

function testPart(a: Attention) {
  const items = a.tests.list.map((t) => {
    const why =
      t.why === 'enough_data'
        ? `Nok data til å avgjøre (${count(t.impressions, 'visning', 'visninger')} i runden).`
        : html`Har gått i ${ATTENTION.longRunningDays} dager eller mer uten avgjørelse (runden startet ${t.roundStartedAt ? timeTag(t.roundStartedAt) : 'ukjent'}).`;
    return html`<li><a href="/studio/publikasjoner/${t.publicationId}#artikkel-${t.articleId}">${t.articleTitle ?? 'Uten tittel'}</a> (${t.variantType}) i ${t.publicationTitle}: ${why} ${t.explanation}</li>`;
  });
  return html`<h3>Tester som venter på en avgjørelse</h3>
<ul>${items}</ul>${a.tests.total > a.tests.list.length ? html`<p>Og ${count(a.tests.total - a.tests.list.length, 'test', 'tester')} til under <a href="/studio/publikasjoner">Publikasjoner</a>.</p>` : ''}`;
}

function jobPart(jobs: NonNullable<Attention['failedJobs']>) {
  const items = jobs.newest.map((j) => html`<li>Jobb ${j.id} (${j.job_type}), lagt i kø ${timeTag(j.queued_at)}${j.last_error ? html`: ${j.last_error}` : ''}</li>`);
  return html`<h3>Feilede jobber</h3>
<p><a href="/studio/system?status=failed">${count(jobs.total, 'jobb har feilet', 'jobber har feilet')}</a>; de nyeste:</p>
<ul>${items}</ul>`;
}

function shortcuts(view: StudioView) {
  return html`<section aria-labelledby="snarveier"><h2 id="snarveier">Snarveier</h2>
<ul>
<li><a href="/studio/publikasjoner">Publikasjoner</a>: forsidetester, publisering, varianter</li>
<li><a href="/studio/webhooks">Webhooks</a>: leveranser, maler, nøkler</li>
<li><a href="/studio/orkestreringer">Orkestreringer</a>: kjøringer og logg</li>
${view.caller?.isAdmin ? html`<li><a href="/studio/system">System</a>: jobber, ressurser, prioritetsregler</li>` : ''}
</ul></section>`;
}
