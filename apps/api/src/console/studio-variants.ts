import type { Request, Response, Router } from 'express';
import { html, removeVariant, updateVariant, type Html, type PublishingStore } from '@inntak/publishing';
import type { ArticleEntry, PublicationEntry, StudioReads, VariantEntry } from '@inntak/studio';
import { UpdateVariantBody } from '../schemas.js';
import { EMPTY_FORM, errorSummary, field, handleForm, parseForm, valuesOf, type FormState } from './studio-forms.js';
import { actionButton, csrfField, type StudioView } from './studio-html.js';
import { publicationFor } from './studio-publication-settings.js';
import { studioCaller } from './studio-session.js';

/**
 * Variant types the front page tells apart (selectVariant: one test per type; every variant
 * shows its own title, and its teaser or else the article's excerpt). The type only groups the
 * variants that are tested against each other: a name and what it is for, for the form's select.
 */
export const VARIANT_TYPES: ReadonlyArray<{ value: string; label: string }> = [
  { value: 'headline', label: 'Tittel (headline): varianter med ulike titler' },
  { value: 'teaser', label: 'Ingress (teaser): varianter med ulike ingresser' },
];

const LABELS: Record<string, string> = { title: 'Tittel', teaser: 'Ingress' };

export interface StudioVariantDeps {
  publishingStore: PublishingStore;
  studio: { reads: StudioReads };
}

/** Renders the publication page again with a refused variant form on it. */
export type PublicationRenderer = (req: Request, res: Response, publication: PublicationEntry, form?: FormState) => Promise<Html>;

/** update_variant and remove_variant from the publication page's variant list. */
export function installStudioVariants(router: Router, deps: StudioVariantDeps, render: PublicationRenderer): void {
  router.post('/publikasjoner/:id/varianter/:edge', async (req, res) => {
    const publication = await publicationFor(deps.studio.reads, res, req.params.id);
    const values: Record<string, string> = { ...valuesOf(req.body), edge_id: req.params.edge };
    await handleForm(res, values, (state) => render(req, res, publication, state), async () => {
      const body = parseForm(UpdateVariantBody, { edge_id: req.params.edge, title: values.title, teaser: values.teaser || null }, LABELS, values);
      const { new_round: newRound } = await updateVariant(deps.publishingStore, studioCaller(res), body);
      res.redirect(303, `/studio/publikasjoner/${publication.id}?ok=${newRound ? 'variant-ny-runde' : 'variant-endret'}`);
    });
  });

  router.post('/publikasjoner/:id/varianter/:edge/fjern', async (req, res) => {
    const publication = await publicationFor(deps.studio.reads, res, req.params.id);
    const values = { ...valuesOf(req.body), edge_id: req.params.edge };
    await handleForm(res, values, (state) => render(req, res, publication, state), async () => {
      const body = parseForm(UpdateVariantBody.pick({ edge_id: true }), { edge_id: req.params.edge }, LABELS, values);
      await removeVariant(deps.publishingStore, studioCaller(res), body);
      res.redirect(303, `/studio/publikasjoner/${publication.id}?ok=variant-fjernet`);
    });
  });
}

/** The article's variants, each with a form to change its title and teaser and a button that removes it. */
export function variantList(view: StudioView, base: string, article: ArticleEntry, form?: FormState): Html {
  if (!article.variants.length) return html``;
  return html`<details${form?.values.edge_id && article.variants.some((v) => v.id === form.values.edge_id) ? html` open` : ''}><summary>Endre eller fjern varianter<span class="vh"> av «${article.title ?? 'Uten tittel'}»</span></summary>
<ul class="variants">${article.variants.map((v) => variantItem(view, base, v, form?.values.edge_id === v.id ? form : undefined))}</ul></details>`;
}

function variantItem(view: StudioView, base: string, variant: VariantEntry, refused?: FormState): Html {
  const state = refused ?? { ...EMPTY_FORM, values: { title: variant.title, teaser: variant.teaser ?? '' } };
  const ids = { title: `vt-${variant.id}`, teaser: `vi-${variant.id}` };
  const status = variant.status === 'testing' ? 'testes: en endring starter testen på nytt' : variant.status === 'winner' ? 'vinner' : variant.status === 'retired' ? 'trukket tilbake' : 'alene';
  return html`<li><p><strong>${variant.title}</strong> <span class="hint">(${variant.variantType}; ${status})</span></p>
${errorSummary(state, ids)}
<form method="post" action="${base}/varianter/${variant.id}">${csrfField(view)}
${field(state, { name: 'title', id: ids.title, label: LABELS.title!, required: true, maxlength: 300 })}
${field(state, { name: 'teaser', id: ids.teaser, label: LABELS.teaser!, type: 'textarea', rows: 2, maxlength: 1000, hint: 'Tom: artikkelens egen ingress.' })}
<p><button type="submit">Lagre variant<span class="vh"> «${variant.title}»</span></button></p></form>
<div>${actionButton(view, `${base}/varianter/${variant.id}/fjern`, html`Fjern variant<span class="vh"> «${variant.title}»</span>`)}</div></li>`;
}
