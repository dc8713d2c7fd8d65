import { at, fields, firstStr, isFields, isTrue, list, lookup, num, str, textAt } from './field-access.js';
import { renderForgeEvent } from './forge-event.js';
import { actorName, hasCreateMarks, repositoryName, userName, type ForgeEvent } from './forge-sender.js';
import { bold, code, escapeMd, link, withReferences, type RefContext } from './markdown.js';
import { extraMetadata, repoPrefix, result, type MetadataBase } from './template-result.js';
import { excerpt, factLines, firstLine, isZeroSha, oneLine, parseRef, plural, quote, sha7, type RefType } from './text-format.js';
import type { Headers, Template, TemplateResult } from './types.js';
import { t, type Locale } from './locale.js';

export const FORGE_PUSH_VERSION = 3;
const MAX_LISTED_COMMITS = 20;

/** `created-or-deleted`: a bare create/delete body posted without its header (Gogs's carry no sign of which). */
type Change = 'push' | 'force-push' | 'create' | 'delete' | 'created-or-deleted';

interface Commit {
  id?: string;
  message?: string;
  author?: string;
  url?: string;
}

/** One ref's update; Bitbucket may put several in one delivery. */
interface RefChange {
  ref?: string;
  refType: RefType;
  refName?: string;
  change: Change;
  before?: string;
  after?: string;
  commits: Commit[];
  /** The sender's own count when it gives one, never less than the listed commits. */
  total: number;
  /** Bitbucket's `truncated`: more commits exist than it listed, count unknown. */
  truncated: boolean;
  url?: string;
}

interface Push {
  repository?: string;
  pusher?: string;
  repoUrl?: string;
  /** Where `#12`, `!12` and `@ola` in commit messages point. */
  refs?: RefContext;
  changes: RefChange[];
}

export const forgePush: Template = {
  id: 'forge-push',
  title: 'Code push',
  description:
    'Pushes, branch and tag creation/deletion and force pushes: repository, branch or tag, pusher and up to 20 commits.',
  senders: ['GitHub', 'GitLab', 'Gitea', 'Forgejo', 'Bitbucket Cloud'],
  render(payload: unknown, headers: Headers, locale: Locale = 'en'): TemplateResult {
    return renderForgeEvent<Push | Release>(
      { id: 'forge-push', version: FORGE_PUSH_VERSION },
      payload,
      headers,
      (p, detected) => (detected.kind === 'release' ? readRelease(p, detected) : readPush(p, detected)),
      (facts, base) => ('tag' in facts ? renderRelease(facts, base) : renderPush(facts, base)),
      locale,
    );
  },
};

function readPush(payload: unknown, detected: ForgeEvent): Push | undefined {
  const { sender, kind } = detected;
  if (kind !== 'push' && kind !== 'create' && kind !== 'delete') return undefined;
  const repository = repositoryName(payload, sender);
  if (sender === 'bitbucket') return bitbucketPush(payload, repository);
  if (sender === 'azure-devops') return azurePush(payload, repository);
  if (kind === 'create' || kind === 'delete') return refEvent(payload, detected, repository);
  const p = fields(payload);
  const { type, name } = parseRef(str(p.ref), sender === 'gitlab' && p.object_kind === 'tag_push' ? 'tag' : 'branch');
  const before = str(p.before);
  const after = firstStr(p.after, p.checkout_sha);
  const commits = list(p.commits).slice(0, MAX_LISTED_COMMITS).map(readCommit);
  const listedCount = list(p.commits).length;
  const claimed = num(p.total_commits_count) ?? num(p.total_commits) ?? 0;
  const deleted = isTrue(p.deleted) || isZeroSha(str(p.after));
  const created = !deleted && (isTrue(p.created) || isZeroSha(before));
  const repoUrl = firstStr(at(p, 'repository', 'html_url'), at(p, 'project', 'web_url'));
  return {
    repository,
    pusher: sender === 'gitlab' ? actorName(payload, sender) : firstStr(userName(p.pusher), actorName(payload, sender)),
    repoUrl,
    refs: { repoUrl, gitlab: sender === 'gitlab' },
    changes: [
      {
        ref: str(p.ref),
        refType: type ?? 'branch',
        refName: name,
        change: deleted ? 'delete' : created ? 'create' : isTrue(p.forced) ? 'force-push' : 'push',
        before,
        after: deleted ? undefined : firstStr(after, at(p, 'head_commit', 'id')),
        commits,
        total: Math.max(claimed, listedCount),
        truncated: false,
        url: firstStr(p.compare, p.compare_url),
      },
    ],
  };
}

/** GitHub's and Gitea's separate create/delete events: a bare ref name plus `ref_type`. */
function refEvent(payload: unknown, detected: ForgeEvent, repository: string | undefined): Push {
  const p = fields(payload);
  const refType: RefType = str(p.ref_type) === 'tag' ? 'tag' : 'branch';
  return {
    repository,
    pusher: actorName(payload, detected.sender),
    repoUrl: textAt(p, 'repository', 'html_url'),
    changes: [
      {
        ref: str(p.ref),
        refType,
        refName: parseRef(str(p.ref), refType).name,
        change:
          detected.kind === 'delete'
            ? 'delete'
            : detected.byShape && !hasCreateMarks(p) && p.pusher_type === undefined
              ? 'created-or-deleted'
              : 'create',
        after: str(p.sha),
        commits: [],
        total: 0,
        truncated: false,
      },
    ],
  };
}

function bitbucketPush(payload: unknown, repository: string | undefined): Push {
  const changes: RefChange[] = [];
  for (const item of list(at(payload, 'push', 'changes'))) {
    const c = fields(item);
    const next = isFields(c.new) ? c.new : undefined;
    const old = isFields(c.old) ? c.old : undefined;
    const commits = list(c.commits).slice(0, MAX_LISTED_COMMITS).map(readCommit);
    const deleted = isTrue(c.closed) || (next === undefined && old !== undefined);
    changes.push({
      refType: firstStr(next?.type, old?.type) === 'tag' ? 'tag' : 'branch',
      refName: firstStr(next?.name, old?.name),
      change: deleted ? 'delete' : isTrue(c.created) || old === undefined ? 'create' : isTrue(c.forced) ? 'force-push' : 'push',
      before: textAt(old, 'target', 'hash'),
      after: textAt(next, 'target', 'hash'),
      commits,
      total: list(c.commits).length,
      truncated: isTrue(c.truncated),
      url: firstStr(at(c, 'links', 'html', 'href'), at(c, 'links', 'diff', 'href')),
    });
  }
  return {
    repository,
    pusher: actorName(payload, 'bitbucket'),
    repoUrl: textAt(payload, 'repository', 'links', 'html', 'href'),
    changes,
  };
}

/** Azure DevOps `git.push`: `resource.refUpdates[]` with old/new object ids, commits with `commitId`/`comment`. */
function azurePush(payload: unknown, repository: string | undefined): Push {
  const r = fields(at(payload, 'resource'));
  const commits = list(r.commits);
  const changes: RefChange[] = list(r.refUpdates).map((item) => {
    const u = fields(item);
    const { type, name } = parseRef(str(u.name), 'branch');
    const before = str(u.oldObjectId);
    const after = str(u.newObjectId);
    return {
      ref: str(u.name),
      refType: type ?? 'branch',
      refName: name,
      change: isZeroSha(after) ? 'delete' : isZeroSha(before) ? 'create' : 'push',
      before,
      after: isZeroSha(after) ? undefined : after,
      commits: commits.slice(0, MAX_LISTED_COMMITS).map(readCommit),
      total: commits.length,
      truncated: false,
      url: str(r.url),
    };
  });
  return {
    repository,
    pusher: firstStr(at(r, 'pushedBy', 'displayName'), at(r, 'pushedBy', 'uniqueName')),
    repoUrl: textAt(r, 'repository', 'remoteUrl'),
    changes,
  };
}

function readCommit(value: unknown): Commit {
  const c = fields(value);
  return {
    id: firstStr(c.id, c.hash, c.sha, c.commitId),
    message: firstStr(c.message, c.comment),
    url: firstStr(c.url, at(c, 'links', 'html', 'href'), c.remoteUrl),
    author: firstStr(
      at(c, 'author', 'name'),
      userName(at(c, 'author', 'user')),
      at(c, 'author', 'username'),
      nameOfRaw(textAt(c, 'author', 'raw')),
      str(c.author),
    ),
  };
}

/**
 * Bitbucket's raw author is "Name <email>": keep the name. Done with indexes, not the regex
 * /\s*<[^>]*>\s*$/, whose cost is quadratic in the number of `<` (issue 11).
 */
export function nameOfRaw(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const end = raw.trimEnd();
  const open = end.lastIndexOf('<');
  if (open === -1 || !end.endsWith('>') || end.indexOf('>', open) !== end.length - 1) return raw;
  return end.slice(0, open).trimEnd();
}

function renderPush(push: Push, base: MetadataBase): TemplateResult {
  const locale = base.locale ?? 'en';
  const first = push.changes[0];
  const title = first
    ? `${repoPrefix(push.repository)}${sentence(push.pusher, first, locale)}` +
      (push.changes.length > 1 ? ` ${t(locale, '(+{n} more refs)', { n: push.changes.length - 1 })}` : '')
    : `${repoPrefix(push.repository)}${push.pusher ?? 'A push'} pushed (no ref changes)`;
  const facts = factLines(
    [
      ['Repository', push.repository],
      ['Pusher', push.pusher],
      ['Repository URL', push.repoUrl],
    ],
    locale,
  );
  // One change continues the list of facts; several get a line naming each ref, so their lists stay apart.
  const sections =
    push.changes.length === 1
      ? [changeSection(push.changes[0]!, push.refs, facts, locale)]
      : [facts.join('\n'), ...push.changes.map((c) => `${bold(refLabel(c, locale)).text}\n${changeSection(c, push.refs, [], locale)}`)];
  const metadata = extraMetadata(base, {
    repository: push.repository,
    actor: push.pusher,
    ref: first?.ref,
    ref_type: first?.refType,
    ref_name: first?.refName,
    [first?.refType ?? 'branch']: first?.refName,
    change: first?.change,
    before: first?.before,
    sha: first?.after,
    commit_count: first?.total,
    ref_changes: push.changes.length > 1 ? push.changes.length : undefined,
    url: first?.url ?? push.repoUrl,
  });
  return result(title, sections.filter((s) => s !== '').join('\n\n'), metadata);
}

function refLabel(change: RefChange, locale: Locale): string {
  return `${t(locale, change.refType)} ${change.refName ?? '(unnamed)'}`;
}

/**
 * The words the issue asks for: tag push, tag delete, branch create/delete, force push. When the
 * payload names nobody (Gogs's create/delete samples have no sender) the sentence is passive
 * rather than claiming "someone".
 */
function sentence(pusher: string | undefined, change: RefChange, locale: Locale): string {
  const vars = { who: pusher ?? '', ref: change.refName ?? '(unnamed)', label: refLabel(change, locale), commits: plural(change.total, 'commit'), sha: change.after ? sha7(change.after) : '' };
  const head = change.after ? t(locale, ', head is now {sha}', vars) : '';
  // The pusher's name is theirs: only a passive sentence gets a capital letter.
  const say = (active: string, passive: string): string => (pusher ? t(locale, active, vars) : capital(t(locale, passive, vars)));
  if (change.change === 'delete') return say('{who} deleted {label}', '{label} deleted');
  if (change.change === 'created-or-deleted') {
    return (pusher ? `${pusher} created or deleted ${refLabel(change, 'en')}` : `${capital(refLabel(change, 'en'))} created or deleted`) + ' (sent without its event header)';
  }
  if (change.refType === 'tag') {
    return change.change === 'create' ? say('{who} pushed new tag {ref}', 'New tag {ref}') + (pusher ? '' : head) : say('{who} moved tag {ref}', 'Tag {ref} moved') + head;
  }
  if (change.change === 'create') {
    return change.total > 0 ? say('{who} created branch {ref} with {commits}', 'Branch {ref} created with {commits}') : say('{who} created branch {ref}', 'Branch {ref} created');
  }
  if (change.change === 'force-push') {
    return change.total > 0
      ? say('{who} force-pushed {commits} to {ref}', '{commits} force-pushed to {ref}')
      : say('{who} force-pushed {ref} (no new commits)', '{ref} force-pushed (no new commits)') + head;
  }
  return change.total > 0 ? say('{who} pushed {commits} to {ref}', '{commits} pushed to {ref}') : say('{who} pushed to {ref} (no new commits)', 'Push to {ref} (no new commits)');
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A release: GitHub/Gitea/Gogs `release` events, GitLab's Release Hook. */
interface Release {
  repository?: string;
  actor?: string;
  action?: string;
  tag: string | undefined;
  name?: string;
  prerelease: boolean;
  draft: boolean;
  body?: string;
  url?: string;
}

function readRelease(payload: unknown, detected: ForgeEvent): Release {
  const p = fields(payload);
  const gitlab = detected.sender === 'gitlab';
  const r = gitlab ? p : fields(p.release);
  return {
    repository: repositoryName(payload, detected.sender),
    actor: firstStr(actorName(payload, detected.sender), userName(r.author), userName(r.publisher)),
    action: str(gitlab ? p.action : p.action),
    tag: firstStr(r.tag_name, r.tag),
    name: str(r.name),
    prerelease: isTrue(r.prerelease) || isTrue(r.is_prerelease),
    draft: isTrue(r.draft) || isTrue(r.is_draft),
    body: firstStr(r.body, r.description, r.note),
    url: firstStr(r.html_url, r.url),
  };
}

const RELEASE_VERBS: Readonly<Record<string, string>> = {
  published: 'published',
  created: 'created',
  create: 'created',
  edited: 'edited',
  updated: 'edited',
  update: 'edited',
  deleted: 'deleted',
  delete: 'deleted',
  prereleased: 'published',
  released: 'published',
  unpublished: 'unpublished',
};

function renderRelease(release: Release, base: MetadataBase): TemplateResult {
  const verbWord = release.action ? (lookup(RELEASE_VERBS, release.action) ?? release.action.replace(/_/g, ' ')) : 'published';
  const kind = release.draft ? 'draft release' : release.prerelease ? 'pre-release' : 'release';
  const label = `${release.tag ?? release.name ?? '(untitled)'}${release.name && release.name !== release.tag ? `: ${oneLine(release.name, 100)}` : ''}`;
  const title = `${repoPrefix(release.repository)}${release.actor ? `${release.actor} ${verbWord}` : capital(verbWord)} ${kind} ${label}`;
  const facts = factLines(
    [
    ['Release', release.name],
    ['Tag', release.tag],
    ['Action', release.action],
    ['Kind', kind],
    ['Repository', release.repository],
    ['By', release.actor],
    ['URL', release.url],
  ],
    base.locale,
  );
  const sections = [facts.join('\n')];
  if (release.body) sections.push(quote(excerpt(release.body)));
  const metadata = extraMetadata(base, {
    repository: release.repository,
    actor: release.actor,
    action: release.action,
    tag: release.tag,
    release_name: release.name,
    prerelease: release.prerelease || undefined,
    draft: release.draft || undefined,
    url: release.url,
  });
  return result(title, sections.join('\n\n'), metadata);
}

const CHANGE_WORDS: Readonly<Record<Change, string>> = {
  push: 'push',
  'force-push': 'force push',
  create: 'created',
  delete: 'deleted',
  'created-or-deleted': 'created or deleted',
};

function changeSection(change: RefChange, refs: RefContext | undefined, facts: string[], locale: Locale): string {
  const lines = [
    ...facts,
    ...factLines(
      [
        [change.refType === 'tag' ? 'Tag' : 'Branch', change.refName === undefined ? undefined : code(change.refName)],
        ['Change', `${t(locale, change.refType)} ${t(locale, CHANGE_WORDS[change.change])}`],
        ['Commits', change.change === 'delete' || (change.refType === 'tag' && change.total === 0) ? undefined : change.total + (change.truncated ? '+' : '')],
        ['Head', change.after ? code(sha7(change.after)) : undefined],
        ['Compare', change.url],
      ],
      locale,
    ),
  ];
  const listed = change.commits.slice(0, MAX_LISTED_COMMITS);
  // `*` items: a list of their own after the `-` list of facts.
  if (listed.length > 0) lines.push('');
  for (const commit of listed) {
    const sha = link(code(commit.id ? sha7(commit.id) : '???????'), commit.url).text;
    const message = commit.message ? withReferences(firstLine(commit.message), refs).text : t(locale, '(no message)');
    lines.push(`* ${sha} ${message}${commit.author ? ` (${escapeMd(firstLine(commit.author, 60))})` : ''}`);
  }
  const more = change.total - listed.length;
  const moreText = locale === 'en' ? `… and ${plural(more, 'more commit')}` : t(locale, '… and {n} more', { n: plural(more, 'commit') });
  if (more > 0) lines.push('', link(moreText, change.url).text);
  else if (change.truncated) lines.push('', t(locale, '… and more commits (the sender truncated the list)'));
  return lines.join('\n');
}
