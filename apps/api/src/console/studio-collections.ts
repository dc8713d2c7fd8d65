import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { AppError, isUuid } from '@inntak/core';
import { createCollection, grantAccess, revokeAccess, type AccessLevel, type GraphStore } from '@inntak/access';
import { html, type Html } from '@inntak/publishing';
import type { CollectionEntry, MemberEntry, PersonEntry, StudioReads } from '@inntak/studio';
import { AccessLevel as AccessLevelSchema, Id, storableText, Visibility } from '../schemas.js';
import { EMPTY_FORM, errorSummary, field, handleForm, parseForm, valuesOf, type FormState } from './studio-forms.js';
import { actionButton, csrfField, layout, sendPage, type StudioView } from './studio-html.js';
import { studioCaller, viewOf } from './studio-session.js';

export interface StudioCollectionDeps {
  graphStore: GraphStore;
  studio: { reads: StudioReads };
}

/** Collections listed at most (the read is bounded; the list says so when it is full). */
const COLLECTION_PAGE = 200;
const MEMBER_PAGE = 200;
/** Persons a search offers at most: a picker, not a directory. */
const PERSON_HITS = 20;

export const LEVEL_NAMES: Record<AccessLevel, string> = { reader: 'leser', member: 'medlem', admin: 'administrator', owner: 'eier' };
const LEVEL_OPTIONS = (['reader', 'member', 'admin', 'owner'] as const).map((value) => ({ value, label: LEVEL_NAMES[value] }));
const VISIBILITY_OPTIONS = [
  { value: 'hidden', label: 'skjult: bare de med tilgang ser den' },
  { value: 'discoverable', label: 'kan oppdages: alle ser tittelen' },
  { value: 'readable', label: 'lesbar: alle kan lese den' },
  { value: 'open', label: 'åpen' },
];

const NOTICES: Record<string, string> = {
  opprettet: 'Samlingen er opprettet. Du er eier.',
  tilgang: 'Tilgangen er lagret.',
  fjernet: 'Tilgangen er fjernet.',
};

const CREATE_LABELS = { title: 'Navn', visibility: 'Synlighet' };
const CreateCollection = z.strictObject({ title: storableText(z.string().trim().min(1).max(1000)), visibility: Visibility });
const GRANT_LABELS = { subject_id: 'Person', access: 'Nivå' };
const Grant = z.strictObject({ subject_id: Id, access: AccessLevelSchema });

/**
 * Collections and their members (issue 39): create a collection (create_collection), and on its
 * page grant, change and revoke levels (grant_access, revoke_access). The use cases decide who
 * may (admin to grant below owner, owner to grant or take owner, the last owner stays); the page
 * only hides forms from those who could not use them.
 */
export function installStudioCollections(router: Router, deps: StudioCollectionDeps): void {
  const { reads } = deps.studio;

  async function collectionFor(res: Response, raw: unknown): Promise<CollectionEntry> {
    const found = isUuid(raw) ? await reads.collection(studioCaller(res), raw) : undefined;
    if (!found) throw new AppError('not_found', { detail: 'samlingen' });
    return found;
  }

  async function listPage(req: Request, res: Response, form: FormState = EMPTY_FORM): Promise<Html> {
    const list = await reads.collections(studioCaller(res), COLLECTION_PAGE);
    const view = viewOf(res);
    const notice = typeof req.query.ok === 'string' && form === EMPTY_FORM ? NOTICES[req.query.ok] : undefined;
    return layout(
      view,
      'Samlinger',
      html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
${list.length ? html`<ul>${list.map((c) => html`<li><a href="/studio/samlinger/${c.id}">${c.title ?? 'Uten navn'}</a> (${c.level ? LEVEL_NAMES[c.level] : 'systemadministrator'}${c.publication ? '; publikasjon' : ''})</li>`)}</ul>` : html`<p>Du har ingen tilgang til noen samling ennå.</p>`}
${list.length === COLLECTION_PAGE ? html`<p>Viser de første ${COLLECTION_PAGE} etter navn.</p>` : ''}
<section aria-labelledby="ny-samling"><h2 id="ny-samling">Ny samling</h2>
${errorSummary(form)}
<form method="post" action="/studio/samlinger">${csrfField(view)}
${field(form, { name: 'title', label: CREATE_LABELS.title, required: true, maxlength: 1000 })}
${field(form, { name: 'visibility', label: CREATE_LABELS.visibility, type: 'select', options: VISIBILITY_OPTIONS, value: 'hidden' })}
<p><button type="submit">Opprett samling</button></p></form></section>`,
    );
  }

  router.get('/samlinger', async (req, res) => {
    sendPage(res, 200, await listPage(req, res));
  });

  router.post('/samlinger', async (req, res) => {
    const values = valuesOf(req.body);
    await handleForm(res, values, (state) => listPage(req, res, state), async () => {
      const body = parseForm(CreateCollection, { title: values.title ?? '', visibility: values.visibility || 'hidden' }, CREATE_LABELS, values);
      const created = await createCollection(deps.graphStore, { title: body.title, visibility: body.visibility, ownerId: studioCaller(res).personId });
      res.redirect(303, `/studio/samlinger/${created.id}?ok=opprettet`);
    });
  });

  async function collectionPage(req: Request, res: Response, collection: CollectionEntry, form: FormState = EMPTY_FORM): Promise<Html> {
    const caller = studioCaller(res);
    const view = viewOf(res);
    // Grant edges are shown to their collection's administrators only (as edgeVisibleTo reads them).
    const administers = caller.isAdmin || collection.level === 'admin' || collection.level === 'owner';
    const members = administers ? await reads.members(collection.id, MEMBER_PAGE) : [];
    const search = typeof req.query.finn === 'string' ? req.query.finn.slice(0, 200) : (form.values.finn ?? '');
    const hits = administers && search.trim() ? await reads.persons(caller, search, PERSON_HITS) : [];
    const notice = typeof req.query.ok === 'string' && form === EMPTY_FORM ? NOTICES[req.query.ok] : undefined;
    const base = `/studio/samlinger/${collection.id}`;
    return layout(
      view,
      collection.title ?? 'Samling uten navn',
      html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<p><a href="/studio/samlinger">Alle samlinger</a></p>
<p>Ditt nivå: ${collection.level ? LEVEL_NAMES[collection.level] : 'systemadministrator'}.${collection.publication ? html` <a href="/studio/publikasjoner/${collection.id}">Til publikasjonen</a>.` : ''}</p>
<p><a href="/studio/orkestreringer/ny?samling=${collection.id}">Ny orkestrering i samlingen</a></p>
${administers ? membersSection(view, base, members, form) : html`<p>Medlemslisten vises for samlingens administratorer.</p>`}
${administers ? grantSection(view, base, search, hits, form) : ''}`,
    );
  }

  router.get('/samlinger/:id', async (req, res) => {
    const collection = await collectionFor(res, req.params.id);
    sendPage(res, 200, await collectionPage(req, res, collection));
  });

  router.post('/samlinger/:id/tilgang', async (req, res) => {
    const collection = await collectionFor(res, req.params.id);
    const values = valuesOf(req.body);
    await handleForm(res, values, (state) => collectionPage(req, res, collection, state), async () => {
      const body = parseForm(Grant, { subject_id: values.subject_id ?? '', access: values.access ?? '' }, GRANT_LABELS, values);
      await grantAccess(deps.graphStore, studioCaller(res), { subject_id: body.subject_id, object_id: collection.id, access: body.access });
      res.redirect(303, `/studio/samlinger/${collection.id}?ok=tilgang`);
    });
  });

  router.post('/samlinger/:id/fjern', async (req, res) => {
    const collection = await collectionFor(res, req.params.id);
    const values = valuesOf(req.body);
    await handleForm(res, values, (state) => collectionPage(req, res, collection, state), async () => {
      const body = parseForm(z.strictObject({ subject_id: Id }), { subject_id: values.subject_id ?? '' }, GRANT_LABELS, values);
      await revokeAccess(deps.graphStore, studioCaller(res), { subject_id: body.subject_id, object_id: collection.id });
      res.redirect(303, `/studio/samlinger/${collection.id}?ok=fjernet`);
    });
  });
}

function personName(p: { name: string | null; subjects: string[] }): string {
  return `${p.name ?? 'Uten navn'}${p.subjects.length ? ` (${p.subjects.join(', ')})` : ''}`;
}

function membersSection(view: StudioView, base: string, members: MemberEntry[], form: FormState) {
  // A refused change or removal (e.g. the last owner) is shown above the table, naming the person.
  const refused = form.values.skjema === 'medlem' ? form : undefined;
  const rows = members.map((m) => {
    const id = `niva-${m.personId}`;
    return html`<tr><th scope="row">${personName(m)}</th><td>${LEVEL_NAMES[m.level]}</td>
<td><form method="post" action="${base}/tilgang" class="row">${csrfField(view)}<input type="hidden" name="skjema" value="medlem"><input type="hidden" name="subject_id" value="${m.personId}">
<div><label for="${id}">Nytt nivå<span class="vh"> for ${m.name ?? m.personId}</span></label><select id="${id}" name="access">${LEVEL_OPTIONS.map((o) => html`<option value="${o.value}"${o.value === m.level ? html` selected` : ''}>${o.label}</option>`)}</select></div>
<button type="submit">Endre<span class="vh"> nivået til ${m.name ?? m.personId}</span></button></form>
${actionButton(view, `${base}/fjern`, html`Fjern<span class="vh"> ${m.name ?? m.personId}</span>`, { subject_id: m.personId, skjema: 'medlem' })}</td></tr>`;
  });
  return html`<section aria-labelledby="medlemmer"><h2 id="medlemmer">Medlemmer</h2>
${refused ? errorSummary(refused) : ''}
${
  rows.length
    ? html`<div class="scroll" role="region" tabindex="0" aria-label="Tabell (kan rulles sideveis)"><table><caption>Direkte tilgang, sterkeste nivå først</caption>
<thead><tr><th scope="col">Person</th><th scope="col">Nivå</th><th scope="col">Endre eller fjern</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p>Ingen har direkte tilgang.</p>`
}
${members.length === MEMBER_PAGE ? html`<p>Viser de første ${MEMBER_PAGE}.</p>` : ''}</section>`;
}

function grantSection(view: StudioView, base: string, search: string, hits: PersonEntry[], form: FormState) {
  const state = form.values.skjema === 'ny' ? form : EMPTY_FORM;
  return html`<section aria-labelledby="gi-tilgang"><h2 id="gi-tilgang">Gi en person tilgang</h2>
<form method="get" action="${base}#gi-tilgang" class="row" role="search"><div><label for="finn">Finn person (navn eller innloggings-id)</label><input id="finn" name="finn" type="search" value="${search}" maxlength="200" autocomplete="off"></div><button type="submit">Søk</button></form>
${
  search.trim()
    ? hits.length
      ? html`${errorSummary(state)}<form method="post" action="${base}/tilgang">${csrfField(view)}<input type="hidden" name="skjema" value="ny"><input type="hidden" name="finn" value="${search}">
${field(state, { name: 'subject_id', label: GRANT_LABELS.subject_id, type: 'select', required: true, options: hits.map((p) => ({ value: p.id, label: personName(p) })) })}
${field(state, { name: 'access', label: GRANT_LABELS.access, type: 'select', required: true, options: LEVEL_OPTIONS, value: 'member' })}
<p><button type="submit">Gi tilgang</button></p></form>`
      : html`<p role="status">Ingen personer funnet for «${search}». Navn søkes blant dem du administrerer noe sammen med; andre finnes med sin nøyaktige innloggings-id.</p>`
    : html`<p class="hint">Søk etter navn blant personer du allerede administrerer noe sammen med, eller skriv en persons nøyaktige innloggings-id (subject).</p>`
}</section>`;
}
