import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { AppError, isUuid } from '@inntak/core';
import { createNode, nodeKindRule, queryNodes, updateNode, type GraphStore } from '@inntak/access';
import type { GraphNode, NodeQueryStore } from '@inntak/graph';
import { html, Html, publishArticle, renderMarkdown, type PublishingStore } from '@inntak/publishing';
import type { PublicationEntry, StudioReads } from '@inntak/studio';
import { Id, storableText, UpdateNodeBody } from '../schemas.js';
import { EMPTY_FORM, errorSummary, field, FormRejected, handleForm, parseForm, valuesOf, type FormState } from './studio-forms.js';
import { actionButton, csrfField, layout, sendPage, timeTag } from './studio-html.js';
import { administers, publicationFor } from './studio-publication-settings.js';
import { studioCaller, viewOf } from './studio-session.js';

export interface StudioArticleDeps {
  /** create_node and update_node (packages/access). */
  graphStore: GraphStore;
  /** GET /query/nodes' and GET /nodes/{id}'s reads: the picker's search, the editor's node. */
  nodeQueries: NodeQueryStore;
  publishingStore: PublishingStore;
  studio: { reads: StudioReads };
}

/** How many nodes the picker lists: one page of the search, the best first. */
const PICKER_LIMIT = 20;
/** Collections offered for a new article. */
const COLLECTIONS_LIMIT = 100;
/** Edges read with an article (to tell whether it is published here). */
const EDGES_READ = 100;
/** The node kind the console writes articles as (the public pages render its content as Markdown). */
const ARTICLE_KIND = 'content';

const LABELS: Record<string, string> = { collection_id: 'Samling', title: 'Tittel', content: 'Tekst (Markdown)', q: 'Søk i tittel og tekst' };

const NewArticle = z.strictObject({
  collection_id: Id,
  title: storableText(z.string().trim().min(1).max(1000)),
  content: storableText(z.string().min(1)),
});
const PickerQuery = z.strictObject({ q: storableText(z.string().trim().min(1).max(500)).optional() });

/** A node the editor may show (readable in full: content, not a discoverable summary). */
type ArticleNode = Pick<GraphNode, 'id' | 'title' | 'content' | 'node_kind'>;

/**
 * Articles in the console (issue 39): a Markdown editor whose preview is rendered by the server
 * with the public pages' renderer (no JavaScript: "Forhåndsvis" is a submit button that saves
 * nothing), saved through create_node / update_node, and a picker that finds the caller's nodes
 * through GET /query/nodes' use case to publish one (publish_article).
 */
export function installStudioArticles(router: Router, deps: StudioArticleDeps): void {
  const { reads } = deps.studio;

  async function editorPage(req: Request, res: Response, publication: PublicationEntry, article: ArticleNode | undefined, form: FormState, preview: boolean, publishedHere = false): Promise<Html> {
    const view = viewOf(res);
    const base = `/studio/publikasjoner/${publication.id}`;
    const collections = article ? [] : await reads.writableCollections(studioCaller(res), COLLECTIONS_LIMIT);
    const action = article ? `${base}/artikler/${article.id}` : `${base}/artikler`;
    const notice = req.query.ok === 'lagret' && !preview && !form.problem && !Object.keys(form.errors).length ? html`<p class="notice" role="status">Artikkelen er lagret.</p>` : '';
    const previewBlock = preview
      ? html`<section aria-labelledby="forhandsvisning" class="preview"><h2 id="forhandsvisning">Forhåndsvisning (ikke lagret)</h2>
<p class="hint">Slik blir teksten på den offentlige siden. Ingenting er lagret før du trykker «Lagre».</p>
<article lang="nb" style="border:1px solid #bbb;padding:0 1rem;margin:.5rem 0"><p><strong>${form.values.title || 'Uten tittel'}</strong></p>${new Html(renderMarkdown(form.values.content ?? ''))}</article></section>`
      : '';
    const collectionField = article
      ? ''
      : collections.length
        ? field(form, {
            name: 'collection_id',
            label: LABELS.collection_id!,
            type: 'select',
            required: true,
            value: collections.find((c) => c.id === publication.id)?.id ?? collections[0]!.id,
            options: collections.map((c) => ({ value: c.id, label: c.publicationSlug ? `${c.title} (publikasjon)` : c.title })),
            hint: 'Hvor artikkelen lagres. Medlemmene av samlingen kan lese og endre den.',
          })
        : html`<p class="error">Du er ikke medlem av noen samling og kan derfor ikke lagre en artikkel. Be en administrator av en samling om å legge deg til.</p>`;
    const publishBlock = article
      ? publishedHere
        ? html`<p>Artikkelen er publisert i ${publication.title}. <a href="/pub/${publication.slug}/artikkel/${article.id}">Se den offentlige siden</a>.</p>`
        : administers(res, publication)
          ? html`<div>Ikke publisert i ${publication.title}. ${actionButton(view, `${base}/publiser`, html`Publiser<span class="vh"> «${article.title ?? 'Uten tittel'}»</span>`, { node_id: article.id })}</div>`
          : html`<p>Ikke publisert. En eier eller administrator av publikasjonen kan publisere den.</p>`
      : '';
    return layout(
      view,
      article ? `Rediger «${article.title ?? 'Uten tittel'}»` : 'Skriv en artikkel',
      html`<p><a href="${base}">Tilbake til ${publication.title}</a></p>
${notice}${publishBlock}${previewBlock}
${errorSummary(form)}
<form method="post" action="${action}">${csrfField(view)}
${collectionField}
${field(form, { name: 'title', label: LABELS.title!, required: true, maxlength: 1000 })}
${field(form, { name: 'content', label: LABELS.content!, type: 'textarea', rows: 16, required: true, hint: html`Avsnitt skilles med en tom linje. <code>## Mellomtittel</code>, <code>*kursiv*</code>, <code>**fet**</code>, <code>[lenke](https://…)</code>, lister med <code>- </code>.` })}
<p class="row"><button type="submit" name="handling" value="forhandsvis">Forhåndsvis</button><button type="submit" name="handling" value="lagre">Lagre</button></p></form>`,
    );
  }

  async function readArticle(res: Response, raw: unknown): Promise<{ node: ArticleNode; published: (publicationId: string) => boolean }> {
    const found = isUuid(raw) ? await deps.nodeQueries.readNode(studioCaller(res).personId, raw, { limit: EDGES_READ }) : undefined;
    if (!found) throw new AppError('not_found', { detail: 'artikkelen' });
    return { node: found.node, published: (id) => found.edges.some((e) => e.edge_type === 'published_in' && e.source_id === found.node.id && e.target_id === id) };
  }

  router.get('/publikasjoner/:id/artikler/ny', async (req, res) => {
    const publication = await publicationFor(reads, res, req.params.id);
    sendPage(res, 200, await editorPage(req, res, publication, undefined, EMPTY_FORM, false));
  });

  router.post('/publikasjoner/:id/artikler', async (req, res) => {
    const publication = await publicationFor(reads, res, req.params.id);
    const values = valuesOf(req.body);
    const preview = values.handling === 'forhandsvis';
    const input = { collection_id: values.collection_id, title: values.title, content: values.content };
    if (preview) return sendPage(res, 200, await editorPage(req, res, publication, undefined, { values, errors: {} }, true));
    await handleForm(res, values, (state) => editorPage(req, res, publication, undefined, state, false), async () => {
      const body = parseForm(NewArticle, input, LABELS, values);
      const { id } = await createNode(deps.graphStore, studioCaller(res), { node_kind: ARTICLE_KIND, ...body });
      res.redirect(303, `/studio/publikasjoner/${publication.id}/artikler/${id}?ok=lagret`);
    });
  });

  router.get('/publikasjoner/:id/artikler/:node', async (req, res) => {
    const publication = await publicationFor(reads, res, req.params.id);
    const { node, published } = await readArticle(res, req.params.node);
    const form = { values: { title: node.title ?? '', content: node.content ?? '' }, errors: {} };
    sendPage(res, 200, await editorPage(req, res, publication, node, form, false, published(publication.id)));
  });

  router.post('/publikasjoner/:id/artikler/:node', async (req, res) => {
    const publication = await publicationFor(reads, res, req.params.id);
    const { node, published } = await readArticle(res, req.params.node);
    const values = valuesOf(req.body);
    const here = published(publication.id);
    if (values.handling === 'forhandsvis') return sendPage(res, 200, await editorPage(req, res, publication, node, { values, errors: {} }, true, here));
    await handleForm(res, values, (state) => editorPage(req, res, publication, node, state, false, here), async () => {
      // The title is required here as in the new-article form (update_node itself allows clearing it).
      const body = parseForm(UpdateNodeBody.extend({ title: NewArticle.shape.title, content: NewArticle.shape.content }), { node_id: node.id, title: values.title, content: values.content }, LABELS, values);
      await updateNode(deps.graphStore, studioCaller(res), body);
      res.redirect(303, `/studio/publikasjoner/${publication.id}/artikler/${node.id}?ok=lagret`);
    });
  });

  async function pickerPage(req: Request, res: Response, publication: PublicationEntry, form: FormState = EMPTY_FORM): Promise<Html> {
    const view = viewOf(res);
    const caller = studioCaller(res);
    const base = `/studio/publikasjoner/${publication.id}`;
    const raw = typeof req.query.q === 'string' ? req.query.q : (form.values.q ?? '');
    let state = form;
    let nodes: GraphNode[] = [];
    try {
      const { q } = parseForm(PickerQuery, raw.trim() ? { q: raw } : {}, LABELS, { q: raw });
      // Without words: the caller's own newest nodes; with words: a ranked search of what they may read.
      const page = await queryNodes(deps.nodeQueries, caller.personId, q ? { text: q, limit: PICKER_LIMIT } : { createdBy: caller.personId, limit: PICKER_LIMIT });
      nodes = page.nodes.filter((n) => nodeKindRule(n.node_kind).publishable);
    } catch (thrown) {
      if (!(thrown instanceof FormRejected)) throw thrown;
      state = { ...thrown.state, problem: form.problem };
    }
    const searched = raw.trim() !== '';
    const rows = nodes.map(
      (n) => html`<li><a href="${base}/artikler/${n.id}">${n.title ?? 'Uten tittel'}</a> <span class="hint">(${n.node_kind}, laget ${timeTag(n.created_at)})</span>
${actionButton(view, `${base}/publiser`, html`Publiser<span class="vh"> «${n.title ?? 'Uten tittel'}»</span>`, { q: raw, node_id: n.id })}</li>`,
    );
    return layout(
      view,
      `Publiser i ${publication.title}`,
      html`<p><a href="${base}">Tilbake til ${publication.title}</a> · <a href="${base}/artikler/ny">Skriv en ny artikkel</a></p>
${errorSummary(state)}
<form method="get" action="${base}/velg" role="search" class="row">
${field({ ...state, values: { q: raw } }, { name: 'q', label: LABELS.q!, type: 'search', maxlength: 500 })}<button type="submit">Søk</button></form>
<h2>${searched ? `Treff for «${raw.trim()}»` : 'Dine nyeste noder'}</h2>
<p class="hint">Viser høyst ${PICKER_LIMIT} noder du kan lese${searched ? ', de beste treffene først' : ''}. Å publisere krever admin på noden og på samlingene den hører til.</p>
${rows.length ? html`<ul class="picker">${rows}</ul>` : html`<p>Ingen noder å vise.${searched ? ' Prøv andre ord.' : ' Søk etter en node, eller skriv en ny artikkel.'}</p>`}`,
    );
  }

  router.get('/publikasjoner/:id/velg', async (req, res) => {
    const publication = await publicationFor(reads, res, req.params.id);
    sendPage(res, 200, await pickerPage(req, res, publication));
  });

  router.post('/publikasjoner/:id/publiser', async (req, res) => {
    const publication = await publicationFor(reads, res, req.params.id);
    const values = valuesOf(req.body);
    await handleForm(res, values, (state) => pickerPage(req, res, publication, state), async () => {
      const body = parseForm(z.object({ node_id: Id }), { node_id: values.node_id }, { node_id: 'Noden' }, values);
      await publishArticle(deps.publishingStore, studioCaller(res), { publication_id: publication.id, node_id: body.node_id });
      res.redirect(303, `/studio/publikasjoner/${publication.id}?ok=publisert`);
    });
  });
}
