import { emojify } from 'node-emoji';

/**
 * The Markdown the templates write (CommonMark, rendered on the pages by markdown-it with raw
 * HTML off). Text from a payload is escaped unless the sender's field is Markdown itself (issue
 * and PR bodies, comments, chat text); what a template adds (bold labels, code spans, links) is
 * an `Md` value that is not escaped again. Every pattern here is linear: each repeated class
 * excludes the character that ends its match, or is bounded.
 */
export class Md {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Inline = string | number | Md;

/** Plain text as Markdown that reads the same: inline markup characters are backslash-escaped. */
export function escapeMd(text: string): string {
  // `&` only before something an entity could be (`&amp;`, `&#32;`): elsewhere it is plain.
  return text.replace(/[\\`*_[\]<>~|]|&(?=#?[A-Za-z0-9]{1,32};)/g, (c) => `\\${c}`);
}

export function inline(value: Inline): string {
  if (value instanceof Md) return value.text;
  return typeof value === 'number' ? String(value) : escapeMd(value);
}

/** A code span that holds any text: the fence is one backtick longer than the longest run inside. */
export function code(text: string): Md {
  // Refs, shas and branch names are short: a longer one is cut rather than filling the page.
  const flat = capCode(text.slice(0, CODE_MAX * 2).replace(/[\r\n]+/g, ' '));
  let longest = 0;
  let run = 0;
  for (const c of flat) {
    run = c === '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat.startsWith(' ') ? ' ' : '';
  return new Md(`${fence}${pad}${flat}${pad}${fence}`);
}

const CODE_MAX = 300;

function capCode(text: string): string {
  if (text.length <= CODE_MAX) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(CODE_MAX - 2)) ? CODE_MAX - 2 : CODE_MAX - 1;
  return `${text.slice(0, end)}…`;
}

export function bold(text: Inline): Md {
  return new Md(`**${inline(text)}**`);
}

const WEB_URL = /^(?:https?:\/\/|mailto:)[^\s<>]+$/i;

/** True for an http(s) or mailto URL a Markdown link may point at (the pages allow no other). */
export function isWebUrl(url: string | undefined): url is string {
  return url !== undefined && url.length <= 2000 && WEB_URL.test(url);
}

/** A link destination in angle brackets: spaces and parentheses in a URL cannot end it early. */
function destination(url: string): string {
  return `<${url.replace(/[<>\\]/g, (c) => encodeURIComponent(c))}>`;
}

/** `[label](url)`; the label alone when the URL is missing or not a web URL. */
export function link(label: Inline, url: string | undefined): Md {
  const text = inline(label);
  return new Md(isWebUrl(url) ? `[${text}](${destination(url)})` : text);
}

/** A URL shown as itself and linked; escaped text when it is not a web URL. */
export function urlText(url: string): Md {
  return isWebUrl(url) ? new Md(`<${url}>`) : new Md(escapeMd(url));
}

/** A value of a fact line: a web URL is linked, other text escaped. */
export function factValue(value: Inline): string {
  if (typeof value === 'string' && isWebUrl(value)) return urlText(value).text;
  return inline(value);
}

/** Where a forge's references point: `#12`, GitLab's `!12`, `@user`. */
export interface RefContext {
  /** The repository's web page, e.g. https://github.com/o/r. */
  repoUrl?: string;
  gitlab?: boolean;
}

const REF = /(^|[^\w/&])([#!][0-9]{1,9}|@[A-Za-z0-9][A-Za-z0-9-]{0,38})(?![\w-])/g;

/**
 * A commit message or title with the forge's references made links (`#12` → the issue, GitLab
 * `!12` → the merge request, `@ola` → the profile), the rest escaped. Without the repository's
 * URL the text is only escaped.
 */
export function withReferences(text: string, refs: RefContext | undefined): Md {
  const repo = refs?.repoUrl?.replace(/\/+$/, '');
  if (!repo || !isWebUrl(repo)) return new Md(escapeMd(text));
  const host = new URL(repo).origin;
  let out = '';
  let last = 0;
  for (const m of text.matchAll(REF)) {
    const ref = m[2]!;
    const start = m.index + m[1]!.length;
    out += escapeMd(text.slice(last, start));
    const kind = ref[0];
    const target =
      kind === '@'
        ? `${host}/${ref.slice(1)}`
        : kind === '!'
          ? refs?.gitlab
            ? `${repo}/-/merge_requests/${ref.slice(1)}`
            : undefined
          : `${repo}${refs?.gitlab ? '/-' : ''}/issues/${ref.slice(1)}`;
    out += target ? link(ref, target).text : escapeMd(ref);
    last = start + ref.length;
  }
  return new Md(out + escapeMd(text.slice(last)));
}

const ENTITIES: Readonly<Record<string, string>> = { '&lt;': '<', '&gt;': '>', '&amp;': '&' };

/**
 * Slack's mrkdwn as Markdown: `<@U1>`/`<@U1|ola>` → **@ola**, `<#C1|general>` → **#general**,
 * `<!here>` → **@here**, `<url|label>` → [label](url), `*bold*` → **bold**, `~strike~` →
 * ~~strike~~, `:emoji:` → the emoji; the three entities Slack escapes are decoded.
 */
export function slackMarkdown(text: string): string {
  const converted = text
    .replace(/<([^<>]*)>/g, (_match, inner: string) => {
      const bar = inner.indexOf('|');
      const target = bar === -1 ? inner : inner.slice(0, bar);
      const label = bar === -1 ? undefined : inner.slice(bar + 1);
      if (target.startsWith('@')) return bold(`@${(label ?? target.slice(1)).replace(/^@/, '')}`).text;
      if (target.startsWith('#')) return bold(`#${label ?? target.slice(1)}`).text;
      if (target.startsWith('!subteam^')) return bold(label ?? `@${target.slice(9)}`).text;
      if (target.startsWith('!')) return bold(label ?? `@${target.slice(1).split('^')[0]}`).text;
      const url = decodeEntities(target);
      if (!isWebUrl(url)) return escapeMd(decodeEntities(label ?? target));
      return label && label !== target ? link(decodeEntities(label), url).text : `<${url}>`;
    })
    .replace(/(^|[\s(])\*([^*\n]{1,2000})\*(?=$|[\s).,!?:;])/gm, '$1**$2**')
    .replace(/(^|[\s(])~([^~\n]{1,2000})~(?=$|[\s).,!?:;])/gm, '$1~~$2~~');
  return emoji(decodeEntities(converted));
}

function decodeEntities(text: string): string {
  return text.replace(/&(lt|gt|amp);/g, (entity) => ENTITIES[entity] ?? entity);
}

/** `:sunny:` → ☀️; an unknown name stays as written. */
export function emoji(text: string): string {
  return text.includes(':') ? emojify(text) : text;
}
