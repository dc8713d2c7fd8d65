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
export type ForgeEventKind = 'push' | 'create' | 'delete' | 'issues' | 'issue_comment' | 'pull_request' | 'other';

export interface ForgeEvent {
  sender: ForgeSender;
  /** The sender's own event name: header value, GitLab `object_kind`, Azure `eventType`. */
  event: string;
  kind: ForgeEventKind;
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
  if (forgejo) return { sender: 'forgejo', event: forgejo, kind: giteaKind(forgejo) };
  const gitea =
    header(headers, 'x-gitea-event-type') ?? header(headers, 'x-gitea-event') ?? header(headers, 'x-gogs-event');
  if (gitea) return { sender: 'gitea', event: gitea, kind: giteaKind(gitea) };
  const github = header(headers, 'x-github-event');
  if (github) return { sender: 'github', event: github, kind: githubKind(github, payload) };
  const gitlab = header(headers, 'x-gitlab-event');
  if (gitlab) {
    const event = textAt(payload, 'object_kind') ?? gitlabHeaderEvent(gitlab);
    return { sender: 'gitlab', event, kind: gitlabKind(event, payload) };
  }
  const bitbucket = header(headers, 'x-event-key');
  if (bitbucket) return { sender: 'bitbucket', event: bitbucket, kind: bitbucketKind(bitbucket) };
  return fromShape(payload);
}

function fromShape(payload: unknown): ForgeEvent {
  const p = fields(payload);
  const azure = str(p.eventType);
  if (azure && (p.publisherId !== undefined || p.resource !== undefined)) {
    return { sender: 'azure-devops', event: azure, kind: azureKind(azure) };
  }
  const objectKind = str(p.object_kind);
  if (objectKind) return { sender: 'gitlab', event: objectKind, kind: gitlabKind(objectKind, payload) };
  if (isBitbucket(p)) {
    const event = bitbucketEventFromShape(p);
    return { sender: 'bitbucket', event, kind: bitbucketKind(event) };
  }
  const event = githubEventFromShape(p);
  const sender = isGitea(p) ? 'gitea' : isGithub(p) ? 'github' : 'unknown';
  return { sender, event, kind: sender === 'github' ? githubKind(event, p) : giteaKind(event) };
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
  if (isFields(p.pull_request)) return 'pull_request';
  if (isFields(p.issue)) return isFields(p.comment) ? 'issue_comment' : 'issues';
  if (str(p.ref_type) && str(p.ref)) {
    // GitHub's and Gitea's create events carry the new ref's sha or description; delete has none.
    return p.sha !== undefined || p.master_branch !== undefined || p.description !== undefined ? 'create' : 'delete';
  }
  if (Array.isArray(p.commits) || (str(p.ref) && (str(p.before) || str(p.after)))) return 'push';
  for (const ci of ['workflow_run', 'workflow_job', 'check_run', 'check_suite']) if (isFields(p[ci])) return ci;
  return 'unknown';
}

function githubKind(event: string, payload: unknown): ForgeEventKind {
  if (event === 'push' || event === 'create' || event === 'delete' || event === 'issues' || event === 'pull_request') {
    return event;
  }
  // Comments on pull requests arrive as issue_comment too; they belong to neither template.
  if (event === 'issue_comment') return at(payload, 'issue', 'pull_request') === undefined ? 'issue_comment' : 'other';
  return 'other';
}

function giteaKind(event: string): ForgeEventKind {
  if (event === 'push' || event === 'create' || event === 'delete') return event;
  if (event === 'issue_comment') return 'issue_comment';
  if (event === 'issues' || /^issue_(assign|label|milestone)$/.test(event)) return 'issues';
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
  if (event === 'issue' || event === 'work_item') return 'issues';
  if (event === 'merge_request') return 'pull_request';
  if (event === 'note' && textAt(payload, 'object_attributes', 'noteable_type') === 'Issue') return 'issue_comment';
  return 'other';
}

function bitbucketEventFromShape(p: Record<string, unknown>): string {
  if (isFields(p.push)) return 'repo:push';
  if (isFields(p.pullrequest)) {
    const state = textAt(p, 'pullrequest', 'state');
    if (state === 'MERGED') return 'pullrequest:fulfilled';
    if (state === 'DECLINED') return 'pullrequest:rejected';
    // Bitbucket stamps updated_on a few milliseconds after created_on when it opens a PR.
    const age = secondsBetween(at(p, 'pullrequest', 'created_on'), at(p, 'pullrequest', 'updated_on'));
    return age !== undefined && age < 10 ? 'pullrequest:created' : 'pullrequest:updated';
  }
  if (isFields(p.issue)) return isFields(p.comment) ? 'issue:comment_created' : 'issue:updated';
  if (isFields(p.commit_status)) return 'repo:commit_status_updated';
  return 'unknown';
}

function bitbucketKind(event: string): ForgeEventKind {
  if (event === 'repo:push') return 'push';
  if (event === 'issue:created' || event === 'issue:updated') return 'issues';
  if (event === 'issue:comment_created') return 'issue_comment';
  if (event.startsWith('pullrequest:') && !event.startsWith('pullrequest:comment_')) return 'pull_request';
  return 'other';
}

function azureKind(event: string): ForgeEventKind {
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
    const repo = at(payload, 'resource', 'repository');
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
    );
  }
  if (sender === 'bitbucket') return userName(at(payload, 'actor'));
  if (sender === 'azure-devops') {
    return firstStr(at(payload, 'resource', 'createdBy', 'displayName'), at(payload, 'resource', 'pushedBy', 'displayName'));
  }
  return firstStr(userName(at(payload, 'sender')), userName(at(payload, 'pusher')), userName(at(payload, 'user')));
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
