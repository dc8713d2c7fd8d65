import MarkdownIt, { type Token } from 'markdown-it';

/**
 * Article content and about texts are Markdown (the templates write it, editors type it). It is
 * rendered by markdown-it with raw HTML off, so nothing in a text becomes markup but what
 * Markdown itself makes, and then held to what a public page may show:
 * - links only to http(s) and mailto, each with rel="nofollow ugc noopener";
 * - images only from this service's /media/{id} (a tracking pixel elsewhere is shown as its alt text);
 * - line breaks inside a paragraph are kept (`breaks`), as chat messages and issue bodies mean them.
 */
const md = new MarkdownIt('default', { html: false, linkify: false, breaks: true, typographer: false });

const LINK = /^(?:https?:\/\/|mailto:)/i;
const MEDIA = /^\/media\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// markdown-it's own check (no javascript:, vbscript:, data: except some images) runs first; ours narrows it.
const validate = md.validateLink.bind(md);
md.validateLink = (url) => validate(url) && (LINK.test(url) || MEDIA.test(url));

/** A link to /media is not a web link: its brackets go, its text stays (images keep /media). */
md.core.ruler.push('only_web_links', (state) => {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    block.children = dropLinks(block.children, (href) => !LINK.test(href));
  }
});

function dropLinks(tokens: Token[], drop: (href: string) => boolean): Token[] {
  const out: Token[] = [];
  let skipping = 0;
  for (const token of tokens) {
    if (token.type === 'link_open' && (skipping > 0 || drop(String(token.attrGet('href') ?? '')))) {
      skipping += 1;
      continue;
    }
    if (token.type === 'link_close' && skipping > 0) {
      skipping -= 1;
      continue;
    }
    out.push(token);
  }
  return out;
}

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options));
md.renderer.rules.link_open = (tokens, i, options, env, self) => {
  tokens[i]!.attrSet('rel', 'nofollow ugc noopener');
  return defaultLinkOpen(tokens, i, options, env, self);
};

const defaultImage = md.renderer.rules.image!;
md.renderer.rules.image = (tokens, i, options, env, self) => {
  const token = tokens[i]!;
  const alt = self.renderInlineAsText(token.children ?? [], options, env);
  if (!MEDIA.test(String(token.attrGet('src') ?? ''))) return md.utils.escapeHtml(alt);
  token.attrSet('loading', 'lazy');
  return defaultImage(tokens, i, options, env, self);
};

/** The HTML of a Markdown text, safe to put in a page as is. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}

/**
 * The words of a Markdown text without its markup, one line: for excerpts, descriptions and
 * feeds. Links keep their text, images their alt text, code spans their code.
 */
export function plainText(text: string): string {
  const words: string[] = [];
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === 'inline' && t.children) walk(t.children);
      else if (t.type === 'text' || t.type === 'code_inline') words.push(t.content);
      else if (t.type === 'softbreak' || t.type === 'hardbreak') words.push(' ');
      else if (t.type === 'image') walk(t.children ?? []);
      else if (t.type === 'code_block' || t.type === 'fence') words.push(' ', t.content, ' ');
      else if (t.type === 'paragraph_close' || t.type === 'heading_close' || t.type === 'list_item_close') words.push(' ');
    }
  };
  walk(md.parse(text, {}));
  return words.join('').replace(/\s+/g, ' ').trim();
}
