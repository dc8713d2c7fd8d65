import { OPERATOR } from '@inntak/access';
import { AppError } from '@inntak/core';
import type { PageLanguage } from '@inntak/publishing';
import { id, optional, required, requireKind, type CommandSpec } from '../command-line.js';

export const publicationAdd: CommandSpec = {
  name: 'publication add',
  args: '--slug S --title T --owner PERSON_ID [--about A] [--language nb|en] [--domain D ...]',
  summary: 'a publication (docs/publishing.md): its pages at /pub/S and at the root of each --domain',
  options: {
    slug: { type: 'string', help: 'lowercase letters, digits and hyphens: /pub/SLUG' },
    title: { type: 'string', help: "the publication's title" },
    owner: id('the person who owns it'),
    about: { type: 'string', help: 'the text of the about page (Markdown)' },
    language: { type: 'string', help: "nb (default) or en: the language of the pages' chrome and dates" },
    domain: { type: 'string', help: 'a custom domain serving the pages (repeatable)', multiple: true },
  },
  async run(options, context) {
    const slug = required(options, 'slug');
    const title = required(options, 'title');
    const ownerId = await requireKind(context, options, 'owner', 'person');
    const domains = options.domain;
    const language = optional(options, 'language');
    // Loaded here, not at start-up: @inntak/publishing builds its date formats when imported.
    const { PAGE_LANGUAGES } = await import('@inntak/publishing');
    if (language !== undefined && !(PAGE_LANGUAGES as readonly string[]).includes(language)) {
      throw new AppError('invalid_input', { detail: `language: nb eller en, ikke ${JSON.stringify(language.slice(0, 20))}` });
    }
    return context.services.createPublication({
      slug,
      title,
      ownerId,
      about: optional(options, 'about'),
      language: language as PageLanguage | undefined,
      domains: Array.isArray(domains) ? domains : [],
    });
  },
};

export const publish: CommandSpec = {
  name: 'publish',
  args: '--publication ID --node ID',
  summary: 'publish a node in a publication (a published_in edge)',
  options: { publication: id('the publication'), node: id('the node to publish') },
  run: (options, { services }) => services.publishArticle(OPERATOR, { publication_id: required(options, 'publication'), node_id: required(options, 'node') }),
};

export const abEvaluate: CommandSpec = {
  name: 'ab evaluate',
  args: '',
  summary: 'run the A/B evaluator of front-page variants now; prints what it decided',
  options: {},
  run: (_options, { services }) => services.runAbEvaluation(),
};

export const abResults: CommandSpec = {
  name: 'ab results',
  args: '--publication ID',
  summary: "a publication's A/B tests: counts, CTR and lift with intervals, always-valid p, why undecided, history (as operator)",
  options: { publication: id('the publication') },
  run: (options, { services }) => services.abResults(OPERATOR, required(options, 'publication')),
};
