import { at, capText, fields, firstStr, isFields, list, lookup, str, textAt } from './field-access.js';
import { secondsBetween } from './text-format.js';
import type { Headers } from './types.js';

/**
 * Which forge sent a payload and which of its events it is. The event header decides when the
 * request has one; otherwise the payload's own shape does, so a payload posted by hand (or
 * replayed without headers) still renders well.
 */
export type ForgeSender = 'github' | 'gitlab' | 'gitea' | 'forgejo' | 'bitbucket' | 'azure-devops' | 'unknown';

/** What a template renders: the sender's many event names folded into a few kinds. */
export type ForgeEventKind =
  | 'push'
  | 'create'
  | 'delete'
  | 'release'
  | 'ping'
  | 'issues'
  | 'issue_comment'
  | 'pull_request'
  /** A review of a pull request (approved, changes requested, commented, dismissed) or a comment in one. */
  | 'pull_request_review'
  /** A comment on a pull/merge request's conversation (GitHub issue_comment on a PR, GitLab MR note…). */
  | 'pull_request_comment'
  | 'other';

export interface ForgeEvent {
  sender: ForgeSender;
  /** The sender's own event name: header value, GitLab `object_kind`, Azure `eventType`. */
  event: string;
  kind: ForgeEventKind;
  /** True when no event header named the event and the payload's shape did. */
  byShape?: boolean;
}

export const SENDER_NAMES: Readonly<Record<ForgeSender, string>> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  gitea: 'Gitea',
  forgejo: 'Forgejo',
  bitbucket: 'Bitbucket',
  'azure-devops': 'Azure DevOps',
  unknown: 'Forge',
};

export function header(headers: Headers, name: string): string | undefined {
  const value: unknown = isFields(headers) ? headers[name] : undefined;
  // A preview's headers are typed by a person and unbounded: read no more than of a payload field.
  const text = typeof value === 'string' ? capText(value).trim() : '';
  return text !== '' ? text : undefined;
}

export function detectForgeEvent(payload: unknown, headers: Headers): ForgeEvent {
  // Forgejo also sends X-Gitea-Event, so it is asked first.
  const forgejo = header(headers, 'x-forgejo-event-type') ?? header(headers, 'x-forgejo-event');
  if (forgejo) return { sender: 'forgejo', event: forgejo, kind: giteaKind(forgejo, payload) };
  const gitea =
    header(headers, 'x-gitea-event-type') ?? header(headers, 'x-gitea-event') ?? header(headers, 'x-gogs-event');
  if (gitea) return { sender: 'gitea', event: gitea, kind: giteaKind(gitea, payload) };
  const github = header(headers, 'x-github-event');
  if (github) return { sender: 'github', event: github, kind: githubKind(github, payload) };
  const gitlab = header(headers, 'x-gitlab-event');
  if (gitlab) {
    // System Hooks name the event in the body (`event_name: push`), as do pre-object_kind bodies.
    const event = textAt(payload, 'object_kind') ?? textAt(payload, 'event_name') ?? gitlabHeaderEvent(gitlab);
    return { sender: 'gitlab', event, kind: gitlabKind(event, payload) };
  }
  const bitbucket = header(headers, 'x-event-key');
  if (bitbucket) return { sender: 'bitbucket', event: bitbucket, kind: bitbucketKind(bitbucket) };
  const guessed = fromShape(payload);
  guessed.byShape = true;
  return guessed;
}

function fromShape(payload: unknown): ForgeEvent {
  const p = fields(payload);
  const azure = str(p.eventType);
  if (azure && (p.publisherId !== undefined || p.resource !== undefined)) {
    return { sender: 'azure-devops', event: azure, kind: azureKind(azure) };
  }
  const objectKind = firstStr(p.object_kind, p.event_name);
  if (objectKind) return { sender: 'gitlab', event: objectKind, kind: gitlabKind(objectKind, payload) };
  // GitLab before `object_kind`: `user_name` and `project_id` beside the push's fields.
  if (p.project_id !== undefined && p.user_name !== undefined && (Array.isArray(p.commits) || p.ref !== undefined)) {
    return { sender: 'gitlab', event: 'push', kind: 'push' };
  }
  if (isBitbucket(p)) {
    const event = bitbucketEventFromShape(p);
    return { sender: 'bitbucket', event, kind: bitbucketKind(event) };
  }
  const event = githubEventFromShape(p);
  // Only GitHub pings with `zen`, even when the body has no repository to show it by.
  const sender = event === 'ping' ? 'github' : isGitea(p) ? 'gitea' : isGithub(p) ? 'github' : 'unknown';
  return { sender, event, kind: sender === 'github' ? githubKind(event, p) : giteaKind(event, p) };
}

function isBitbucket(p: Record<string, unknown>): boolean {
  if (textAt(p, 'repository', 'type') === 'repository') return true;
  return isFields(p.actor) && (isFields(p.push) || isFields(p.pullrequest) || (isFields(p.issue) && isFields(p.repository)));
}

/** Keys only GitHub sends: GraphQL node ids, URL templates, `sender.type`, push's `compare`. */
function isGithub(p: Record<string, unknown>): boolean {
  return (
    at(p, 'repository', 'node_id') !== undefined ||
    at(p, 'sender', 'node_id') !== undefined ||
    at(p, 'repository', 'archive_url') !== undefined ||
    at(p, 'sender', 'type') !== undefined ||
    p.compare !== undefined ||
    p.installation !== undefined
  );
}

/** Gitea users carry `username` beside `login`; its pushes carry `total_commits`/`compare_url`. */
function isGitea(p: Record<string, unknown>): boolean {
  if (isGithub(p)) return false;
  return (
    at(p, 'sender', 'username') !== undefined ||
    at(p, 'repository', 'owner', 'username') !== undefined ||
    p.total_commits !== undefined ||
    (p.compare_url !== undefined && p.commits !== undefined)
  );
}

function githubEventFromShape(p: Record<string, unknown>): string {
  // GitHub sends `zen` and the hook only in the ping every new webhook gets.
  if (str(p.zen) !== undefined && (isFields(p.hook) || p.hook_id !== undefined)) return 'ping';
  if (isFields(p.pull_request)) {
    if (isFields(p.review)) return 'pull_request_review';
    if (isFields(p.thread)) return 'pull_request_review_thread';
    return isFields(p.comment) ? 'pull_request_review_comment' : 'pull_request';
  }
  if (isFields(p.issue)) return isFields(p.comment) ? 'issue_comment' : 'issues';
  if (isFields(p.release) && str(p.action) !== undefined) return 'release';
  if (str(p.ref_type) && str(p.ref)) return isRefDeletion(p) ? 'delete' : 'create';
  if (Array.isArray(p.commits) || (str(p.ref) && (str(p.before) || str(p.after)))) return 'push';
  for (const ci of ['workflow_run', 'workflow_job', 'check_run', 'check_suite']) if (isFields(p[ci])) return ci;
  return 'unknown';
}

/**
 * A create/delete event's direction. Create bodies carry something about the new ref (GitHub
 * `master_branch`/`description`, Gitea `sha`, Gogs `default_branch`); GitHub's, Gitea's and
 * Gogs's delete bodies carry only `pusher_type`. A body with neither is a create: a missing sha
 * must never read as a deletion.
 */
function isRefDeletion(p: Record<string, unknown>): boolean {
  return !hasCreateMarks(p) && p.pusher_type !== undefined;
}

export function hasCreateMarks(p: unknown): boolean {
  const f = fields(p);
  return f.sha !== undefined || f.master_branch !== undefined || f.description !== undefined || f.default_branch !== undefined;
}

/** Comments on pull requests arrive as `issue_comment` with `issue.pull_request` set. */
function onPullRequest(payload: unknown): boolean {
  const marker = at(payload, 'issue', 'pull_request');
  return marker !== undefined && marker !== null && marker !== false;
}

function githubKind(event: string, payload: unknown): ForgeEventKind {
  switch (event) {
    case 'push':
    case 'create':
    case 'delete':
    case 'release':
    case 'ping':
    case 'issues':
    case 'pull_request':
    case 'pull_request_review':
      return event;
    case 'pull_request_review_comment':
    case 'pull_request_review_thread':
      return 'pull_request_review';
    case 'issue_comment':
      return onPullRequest(payload) ? 'pull_request_comment' : 'issue_comment';
    default:
      return 'other';
  }
}

function giteaKind(event: string, payload?: unknown): ForgeEventKind {
  if (event === 'push' || event === 'create' || event === 'delete' || event === 'release') return event;
  if (event === 'issue_comment') return onPullRequest(payload) ? 'pull_request_comment' : 'issue_comment';
  if (event === 'pull_request_comment') return 'pull_request_comment';
  if (event === 'issues' || /^issue_(assign|label|milestone)$/.test(event)) return 'issues';
  if (event.startsWith('pull_request_review') || event === 'pull_request_rejected' || event === 'pull_request_approved') {
    return 'pull_request_review';
  }
  if (event === 'pull_request' || /^pull_request_(assign|label|milestone|sync)$/.test(event)) return 'pull_request';
  return 'other';
}

const GITLAB_HEADER_EVENTS: Readonly<Record<string, string>> = {
  job: 'build',
  confidential_issue: 'issue',
  confidential_note: 'note',
};

/** "Tag Push Hook" → tag_push, "Job Hook" → build: the `object_kind` GitLab puts in the body. */
function gitlabHeaderEvent(value: string): string {
  // trimEnd + endsWith rather than /\s*hook$/, which retries its \s* run from every space: quadratic.
  let name = value.toLowerCase().trimEnd();
  if (name.endsWith('hook')) name = name.slice(0, -4);
  name = name.trim().replace(/\s+/g, '_');
  return lookup(GITLAB_HEADER_EVENTS, name) ?? name;
}

function gitlabKind(event: string, payload: unknown): ForgeEventKind {
  if (event === 'push' || event === 'tag_push') return 'push';
  if (event === 'release') return 'release';
  if (event === 'issue' || event === 'work_item') return 'issues';
  if (event === 'merge_request') return 'pull_request';
  if (event === 'note') {
    const on = textAt(payload, 'object_attributes', 'noteable_type');
    if (on === 'Issue') return 'issue_comment';
    if (on === 'MergeRequest') return 'pull_request_comment';
  }
  return 'other';
}

function bitbucketEventFromShape(p: Record<string, unknown>): string {
  if (isFields(p.push)) return 'repo:push';
  if (isFields(p.pullrequest)) {
    if (isFields(p.comment)) return 'pullrequest:comment_created';
    // Approving and withdrawing an approval send the same body; only the header tells them apart.
    if (isFields(p.approval)) return 'pullrequest:approval';
    const state = textAt(p, 'pullrequest', 'state');
    if (state === 'MERGED') return 'pullrequest:fulfilled';
    if (state === 'DECLINED') return 'pullrequest:rejected';
    // Bitbucket stamps updated_on a few milliseconds after created_on when it opens a PR; only an
    // OPEN pull request nobody has closed yet may be called opened (its docs' samples say
    // "OPEN|MERGED|DECLINED" and carry closed_by: those are only "updated").
    const age = secondsBetween(at(p, 'pullrequest', 'created_on'), at(p, 'pullrequest', 'updated_on'));
    const untouched = state === 'OPEN' && !isFields(at(p, 'pullrequest', 'closed_by'));
    return untouched && age !== undefined && age < 10 ? 'pullrequest:created' : 'pullrequest:updated';
  }
  if (isFields(p.issue)) {
    if (isFields(p.changes)) return 'issue:updated';
    if (isFields(p.comment)) return 'issue:comment_created';
    const age = secondsBetween(at(p, 'issue', 'created_on'), at(p, 'issue', 'updated_on'));
    return age !== undefined && age < 10 ? 'issue:created' : 'issue:updated';
  }
  if (isFields(p.commit_status)) return 'repo:commit_status_updated';
  return 'unknown';
}

function bitbucketKind(event: string): ForgeEventKind {
  if (event === 'repo:push') return 'push';
  if (event === 'issue:created' || event === 'issue:updated') return 'issues';
  if (event === 'issue:comment_created') return 'issue_comment';
  if (event.startsWith('pullrequest:comment_')) return 'pull_request_comment';
  if (event === 'pullrequest:approved' || event === 'pullrequest:unapproved' || event === 'pullrequest:approval' || event.startsWith('pullrequest:changes_request')) {
    return 'pull_request_review';
  }
  if (event.startsWith('pullrequest:')) return 'pull_request';
  return 'other';
}

function azureKind(event: string): ForgeEventKind {
  if (event === 'git.push') return 'push';
  if (event === 'ms.vss-code.git-pullrequest-comment-event') return 'pull_request_comment';
  return /^git\.pullrequest\.(created|updated|merged)$/.test(event) ? 'pull_request' : 'other';
}

/** A user object's best display name across the forges' spellings. */
export function userName(user: unknown): string | undefined {
  if (typeof user === 'string') return str(user);
  return firstStr(
    at(user, 'login'),
    at(user, 'username'),
    at(user, 'display_name'),
    at(user, 'displayName'),
    at(user, 'nickname'),
    at(user, 'name'),
  );
}

export function repositoryName(payload: unknown, sender: ForgeSender): string | undefined {
  if (sender === 'gitlab') {
    return firstStr(
      at(payload, 'project', 'path_with_namespace'),
      at(payload, 'project_name'),
      at(payload, 'project', 'name'),
      at(payload, 'repository', 'name'),
    );
  }
  if (sender === 'azure-devops') {
    // Pull request comments nest the pull request (and its repository) under resource.pullRequest.
    const repo = at(payload, 'resource', 'repository') ?? at(payload, 'resource', 'pullRequest', 'repository');
    const name = textAt(repo, 'name');
    const project = textAt(repo, 'project', 'name');
    return project && name && project !== name ? `${project}/${name}` : (name ?? project);
  }
  return firstStr(
    at(payload, 'repository', 'full_name'),
    at(payload, 'repository', 'name'),
    at(payload, 'project', 'path_with_namespace'),
    typeof at(payload, 'repository') === 'string' ? at(payload, 'repository') : undefined,
  );
}

/** Who caused the event: the sender/actor/user block each forge puts at the top level. */
export function actorName(payload: unknown, sender: ForgeSender): string | undefined {
  if (sender === 'gitlab') {
    return firstStr(
      at(payload, 'user', 'username'),
      at(payload, 'user_username'),
      at(payload, 'user', 'name'),
      at(payload, 'user_name'),
      at(payload, 'user_email'),
    );
  }
  if (sender === 'bitbucket') return userName(at(payload, 'actor'));
  if (sender === 'azure-devops') {
    return firstStr(
      at(payload, 'resource', 'createdBy', 'displayName'),
      at(payload, 'resource', 'pushedBy', 'displayName'),
      at(payload, 'resource', 'comment', 'author', 'displayName'),
    );
  }
  return firstStr(
    userName(at(payload, 'sender')),
    userName(at(payload, 'pusher')),
    userName(at(payload, 'user')),
    at(payload, 'user_username'),
    at(payload, 'user_name'),
  );
}

/** Labels as names, whether a forge sends strings, `{name}` or GitLab's `{title}`. */
export function labelNames(value: unknown): string[] {
  return distinctNames(value, (item) => (typeof item === 'string' ? str(item) : firstStr(at(item, 'name'), at(item, 'title'))));
}

export function userNames(value: unknown): string[] {
  return distinctNames(value, userName);
}

function distinctNames(value: unknown, nameOf: (item: unknown) => string | undefined): string[] {
  const names: string[] = [];
  for (const item of list(value)) {
    const name = nameOf(item);
    if (name !== undefined && !names.includes(name)) names.push(name);
  }
  return names;
}
