import { at, fields, firstStr, isFields, isTrue, list, num, str, textAt } from './field-access.js';
import { renderForgeEvent } from './forge-event.js';
import { actorName, repositoryName, userName, type ForgeEvent } from './forge-sender.js';
import { extraMetadata, repoPrefix, result, type MetadataBase } from './template-result.js';
import { factLines, firstLine, isZeroSha, parseRef, plural, sha7, type RefType } from './text-format.js';
import type { Headers, Template, TemplateResult } from './types.js';

export const FORGE_PUSH_VERSION = 1;
const MAX_LISTED_COMMITS = 20;

type Change = 'push' | 'force-push' | 'create' | 'delete';

interface Commit {
  id?: string;
  message?: string;
  author?: string;
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
  changes: RefChange[];
}

export const forgePush: Template = {
  id: 'forge-push',
  title: 'Code push',
  description:
    'Pushes, branch and tag creation/deletion and force pushes: repository, branch or tag, pusher and up to 20 commits.',
  senders: ['GitHub', 'GitLab', 'Gitea', 'Forgejo', 'Bitbucket Cloud'],
  render(payload: unknown, headers: Headers): TemplateResult {
    return renderForgeEvent({ id: 'forge-push', version: FORGE_PUSH_VERSION }, payload, headers, readPush, renderPush);
  },
};

function readPush(payload: unknown, detected: ForgeEvent): Push | undefined {
  const { sender, kind } = detected;
  if (kind !== 'push' && kind !== 'create' && kind !== 'delete') return undefined;
  const repository = repositoryName(payload, sender);
  if (sender === 'bitbucket') return bitbucketPush(payload, repository);
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
  return {
    repository,
    pusher: sender === 'gitlab' ? actorName(payload, sender) : firstStr(userName(p.pusher), actorName(payload, sender)),
    repoUrl: firstStr(at(p, 'repository', 'html_url'), at(p, 'project', 'web_url')),
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
        change: detected.kind === 'delete' ? 'delete' : 'create',
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

function readCommit(value: unknown): Commit {
  const c = fields(value);
  return {
    id: firstStr(c.id, c.hash, c.sha),
    message: str(c.message),
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
  const first = push.changes[0];
  const pusher = push.pusher ?? 'someone';
  const title = first
    ? `${repoPrefix(push.repository)}${sentence(pusher, first)}` +
      (push.changes.length > 1 ? ` (+${plural(push.changes.length - 1, 'more ref')})` : '')
    : `${repoPrefix(push.repository)}${pusher} pushed (no ref changes)`;
  const sections = [
    factLines([
      ['Repository', push.repository],
      ['Pusher', push.pusher],
      ['Repository URL', push.repoUrl],
    ]).join('\n'),
    ...push.changes.map(changeSection),
  ];
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

function refLabel(change: RefChange): string {
  return `${change.refType} ${change.refName ?? '(unnamed)'}`;
}

/** The words the issue asks for: tag push, tag delete, branch create/delete, force push. */
function sentence(pusher: string, change: RefChange): string {
  const name = change.refName ?? '(unnamed)';
  const commits = plural(change.total, 'commit');
  if (change.change === 'delete') return `${pusher} deleted ${refLabel(change)}`;
  if (change.refType === 'tag') {
    return change.change === 'create' ? `${pusher} pushed new tag ${name}` : `${pusher} moved tag ${name}${headSuffix(change)}`;
  }
  if (change.change === 'create') {
    return `${pusher} created branch ${name}${change.total > 0 ? ` with ${commits}` : ''}`;
  }
  if (change.change === 'force-push') {
    return change.total > 0
      ? `${pusher} force-pushed ${commits} to ${name}`
      : `${pusher} force-pushed ${name} (no new commits)${headSuffix(change)}`;
  }
  return change.total > 0 ? `${pusher} pushed ${commits} to ${name}` : `${pusher} pushed to ${name} (no new commits)`;
}

function headSuffix(change: RefChange): string {
  return change.after ? `, head is now ${sha7(change.after)}` : '';
}

const CHANGE_WORDS: Readonly<Record<Change, string>> = {
  push: 'push',
  'force-push': 'force push',
  create: 'created',
  delete: 'deleted',
};

function changeSection(change: RefChange): string {
  const lines = factLines([
    [change.refType === 'tag' ? 'Tag' : 'Branch', change.refName],
    ['Change', `${change.refType} ${CHANGE_WORDS[change.change]}`],
    ['Commits', change.change === 'delete' || (change.refType === 'tag' && change.total === 0) ? undefined : change.total + (change.truncated ? '+' : '')],
    ['Head', change.after ? sha7(change.after) : undefined],
    ['Compare', change.url],
  ]);
  const listed = change.commits.slice(0, MAX_LISTED_COMMITS);
  if (listed.length > 0) lines.push('');
  for (const commit of listed) {
    const sha = commit.id ? sha7(commit.id) : '???????';
    const message = commit.message ? firstLine(commit.message) : '(no message)';
    lines.push(`- ${sha} ${message}${commit.author ? ` (${firstLine(commit.author, 60)})` : ''}`);
  }
  const more = change.total - listed.length;
  if (more > 0) lines.push(`… and ${plural(more, 'more commit')}`);
  else if (change.truncated) lines.push('… and more commits (the sender truncated the list)');
  return lines.join('\n');
}
