import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { AppError, isUuid } from '@inntak/core';
import { addCollectionOrchestration, DEFAULT_ORCHESTRATIONS_PER_PERSON, EVENT_TYPES, ScriptError, type OrchestrationStore } from '@inntak/orchestration';
import { html, type Html } from '@inntak/publishing';
import type { StudioReads } from '@inntak/studio';
import { Id, storableText } from '../schemas.js';
import { EMPTY_FORM, errorSummary, field, FormRejected, handleForm, parseForm, valuesOf, type FormState } from './studio-forms.js';
import { csrfField, layout, sendPage } from './studio-html.js';
import { studioCaller, viewOf } from './studio-session.js';

/**
 * The orchestration forms that take a script (issue 39): a new orchestration in a collection
 * (create_collection_orchestration's use case, addCollectionOrchestration as the caller) and,
 * rendered on the orchestration's page, the script editor (update_orchestration). A script the
 * validator refuses comes back with its line and column beside the field.
 */
export const EVENT_NAMES: Record<(typeof EVENT_TYPES)[number], string> = {
  'node.created': 'node.created: en node opprettes i samlingen',
  'edge.created': 'edge.created: en kant til eller fra samlingen',
  'node.updated': 'node.updated: en node i samlingen endres',
  manual: 'manual: startes for hånd (med inndata)',
  schedule: 'schedule: etter tidsplan (cron, UTC)',
};

export const SCRIPT_HINT = html`YAML med <code>steps</code>; se docs/orchestration.md. Feil vises med linje og kolonne.`;
const EXAMPLE_SCRIPT = `steps:
  - action: create_node
    with:
      node_kind: note
      title: "Ny: {event.node.title}"
`;

export const NEW_LABELS: Record<string, string> = {
  collection_id: 'Samling',
  title: 'Navn',
  event: 'Utløses av',
  node_kind: 'Bare nodetypen (node_kind)',
  edge_type: 'Bare kanttypen (edge_type)',
  has_tag: 'Bare med emneknaggen (has_tag)',
  cron: 'Tidsplan (cron, fem felt, UTC)',
  script: 'Skript',
};

const NewOrchestration = z.strictObject({
  collection_id: Id,
  title: storableText(z.string().trim().min(1).max(1000)),
  event: z.enum(EVENT_TYPES),
  node_kind: z.string().trim().max(100).optional(),
  edge_type: z.string().trim().max(100).optional(),
  has_tag: z.string().trim().max(200).optional(),
  cron: z.string().trim().max(200).optional(),
  script: storableText(z.string().min(1)),
});

/** Which field a use case's 400 is about, from its detail (the validator's and checkOrchestrationNode's own words). */
const DETAIL_FIELDS: Array<[prefix: string, field: string]> = [
  ['skript:', 'script'],
  ['content:', 'script'],
  ['metadata.trigger.conditions.node_kind', 'node_kind'],
  ['metadata.trigger.conditions.edge_type', 'edge_type'],
  ['metadata.trigger.conditions.has_tag', 'has_tag'],
  ['metadata.trigger.cron', 'cron'],
  ['metadata.trigger.conditions', 'event'],
  ['metadata.trigger', 'event'],
];

/**
 * A script or trigger the use case refused (400), placed on its field: a ScriptError as
 * "linje L, kolonne C: …" beside the script; anything else is the form kit's (handleForm).
 */
export function placeScriptError(thrown: unknown, values: Record<string, string>): never {
  if (thrown instanceof AppError && thrown.code === 'invalid_input') {
    if (thrown.cause instanceof ScriptError) throw new FormRejected({ values, errors: { script: thrown.cause.message } });
    const detail = thrown.detail ?? '';
    const place = DETAIL_FIELDS.find(([prefix]) => detail.startsWith(prefix));
    if (place) {
      const [prefix, name] = place;
      const text = detail.slice(prefix.length).replace(/^[.:\s]+/, '');
      throw new FormRejected({ values, errors: { [name]: name === 'script' && text === 'skriptet mangler' ? '«Skript» må fylles ut.' : `«${NEW_LABELS[name]}»: ${text}` } });
    }
  }
  throw thrown;
}

export interface StudioOrchestrationFormDeps {
  orchestrationStore: OrchestrationStore;
  orchestrationsPerPerson?: number;
  studio: { reads: StudioReads };
}

export function installNewOrchestration(router: Router, deps: StudioOrchestrationFormDeps): void {
  async function newPage(req: Request, res: Response, form: FormState = EMPTY_FORM): Promise<Html> {
    const caller = studioCaller(res);
    // Collections the caller may put a node in (member or better; system administrators: any).
    const collections = (await deps.studio.reads.collections(caller, 200)).filter((c) => caller.isAdmin || (c.level !== null && c.level !== 'reader'));
    const chosen = typeof req.query.samling === 'string' ? req.query.samling : undefined;
    const view = viewOf(res);
    const body = collections.length
      ? html`${errorSummary(form)}
<form method="post" action="/studio/orkestreringer/ny">${csrfField(view)}
${field(form, { name: 'collection_id', label: NEW_LABELS.collection_id!, type: 'select', required: true, value: chosen, options: collections.map((c) => ({ value: c.id, label: c.title ?? c.id })) })}
${field(form, { name: 'title', label: NEW_LABELS.title!, required: true, maxlength: 1000 })}
${field(form, { name: 'event', label: NEW_LABELS.event!, type: 'select', required: true, value: 'node.created', options: EVENT_TYPES.map((e) => ({ value: e, label: EVENT_NAMES[e] })) })}
<fieldset><legend>Vilkår (valgfrie; bare for hendelser i grafen)</legend>
${field(form, { name: 'node_kind', label: NEW_LABELS.node_kind!, maxlength: 100 })}
${field(form, { name: 'edge_type', label: NEW_LABELS.edge_type!, maxlength: 100, hint: 'Bare for edge.created.' })}
${field(form, { name: 'has_tag', label: NEW_LABELS.has_tag!, maxlength: 200 })}
</fieldset>
${field(form, { name: 'cron', label: NEW_LABELS.cron!, maxlength: 200, hint: html`Bare for schedule, f.eks. <code>0 6 * * *</code>.` })}
${field(form, { name: 'script', label: NEW_LABELS.script!, type: 'textarea', required: true, rows: 14, value: EXAMPLE_SCRIPT, hint: SCRIPT_HINT })}
<p><button type="submit">Opprett orkestrering</button></p></form>`
      : html`<p>Du er ikke medlem av noen samling. <a href="/studio/samlinger">Opprett en samling</a> først.</p>`;
    return layout(view, 'Ny orkestrering', html`<p><a href="/studio/orkestreringer">Alle orkestreringer</a></p>${body}`);
  }

  router.get('/orkestreringer/ny', async (req, res) => {
    sendPage(res, 200, await newPage(req, res));
  });

  router.post('/orkestreringer/ny', async (req, res) => {
    const values = valuesOf(req.body);
    await handleForm(res, values, (state) => newPage(req, res, state), async () => {
      const optional = (name: string) => (values[name]?.trim() ? values[name] : undefined);
      const body = parseForm(
        NewOrchestration,
        { collection_id: values.collection_id ?? '', title: values.title ?? '', event: values.event ?? '', node_kind: optional('node_kind'), edge_type: optional('edge_type'), has_tag: optional('has_tag'), cron: optional('cron'), script: values.script ?? '' },
        NEW_LABELS,
        values,
      );
      if (!isUuid(body.collection_id)) throw new FormRejected({ values, errors: { collection_id: '«Samling» må velges.' } });
      const conditions = Object.fromEntries(Object.entries({ node_kind: body.node_kind, edge_type: body.edge_type, has_tag: body.has_tag }).filter(([, v]) => v !== undefined)) as Record<string, string>;
      let made;
      try {
        made = await addCollectionOrchestration(
          deps.orchestrationStore,
          { collection_id: body.collection_id, title: body.title, event: body.event, script: body.script, ...(Object.keys(conditions).length ? { conditions } : {}), ...(body.cron ? { cron: body.cron } : {}) },
          deps.orchestrationsPerPerson ?? DEFAULT_ORCHESTRATIONS_PER_PERSON,
          studioCaller(res),
        );
      } catch (thrown) {
        placeScriptError(thrown, values);
      }
      res.redirect(303, `/studio/orkestreringer/${made.id}?ok=opprettet`);
    });
  });
}
