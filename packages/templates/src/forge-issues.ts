import { at, fields, firstStr, isFields, lookup, num, str, textAt } from './field-access.js';
import { renderForgeEvent } from './forge-event.js';
import { actorName, labelNames, repositoryName, userName, userNames, type ForgeEvent } from './forge-sender.js';
import { extraMetadata, repoPrefix, result, type MetadataBase } from './template-result.js';
import { excerpt, factLines, nameList, oneLine, quote } from './text-format.js';
import type { Headers, Template, TemplateResult } from './types.js';
import { t, type Locale } from './locale.js';

export const FORGE_ISSUES_VERSION = 3;

interface Issue {
  repository?: string;
  number?: number;
  title?: string;
  /** Past-tense verb phrase: opened, closed, labeled, commented on, … */
  action: string;
  /** The sender's own action word (GitHub `labeled`, GitLab `update`, Bitbucket's event key). */
  rawAction?: string;
  /** What the action touched: the label added, the assignee, the old title. */
  detail?: string;
  state?: string;
  stateReason?: string;
  labels: string[];
  assignees: string[];
  author?: string;
  actor?: string;
  body?: string;
  comment?: string;
  url?: string;
  /** `pull request` when GitHub or Gitea sent a pull request's conversation comment to this template. */
  noun?: string;
}

export const forgeIssues: Template = {
  id: 'forge-issues',
  title: 'Issue events',
  description: 'Issue opened, closed, reopened, edited, labeled, assigned or commented: number, title, state, labels, assignees.',
  senders: ['GitHub', 'GitLab', 'Gitea', 'Forgejo', 'Bitbucket Cloud'],
  render(payload: unknown, headers: Headers, locale: Locale = 'en'): TemplateResult {
    return renderForgeEvent({ id: 'forge-issues', version: FORGE_ISSUES_VERSION }, payload, headers, readIssue, renderIssue, locale);
  },
};

function readIssue(payload: unknown, detected: ForgeEvent): Issue | undefined {
  const repository = repositoryName(payload, detected.sender);
  const actor = actorName(payload, detected.sender);
  if (detected.kind === 'pull_request_comment') {
    // A comment on a pull request reaches an issues hook too (GitHub sends it as issue_comment):
    // render it with the pull request's number and title when the body has the issue shape.
    if (!isFields(at(payload, 'issue'))) return undefined;
    return { ...githubLikeIssue(payload, { ...detected, kind: 'issue_comment' }, repository, actor), noun: 'pull request' };
  }
  if (detected.kind !== 'issues' && detected.kind !== 'issue_comment') return undefined;
  if (detected.sender === 'gitlab') return gitlabIssue(payload, detected, repository, actor);
  if (detected.sender === 'bitbucket') return bitbucketIssue(payload, detected, repository, actor);
  return githubLikeIssue(payload, detected, repository, actor);
}

/** Gitea's action names that are not plain verbs. */
const GITEA_ACTIONS: Readonly<Record<string, string>> = {
  label_updated: 'updated labels on',
  label_cleared: 'cleared labels on',
  milestoned: 'set a milestone on',
  demilestoned: 'removed the milestone from',
  synchronized: 'updated',
};

/** GitHub, Gitea and Forgejo share one issue shape. */
function githubLikeIssue(payload: unknown, detected: ForgeEvent, repository?: string, actor?: string): Issue {
  const p = fields(payload);
  const issue = fields(p.issue);
  const rawAction = str(p.action);
  const comment = detected.kind === 'issue_comment' ? textAt(p, 'comment', 'body') : undefined;
  let action = rawAction ? (lookup(GITEA_ACTIONS, rawAction) ?? rawAction.replace(/_/g, ' ')) : 'updated';
  if (detected.kind === 'issue_comment') action = rawAction === 'created' || !rawAction ? 'commented on' : `${action} a comment on`;
  let detail: string | undefined;
  if (rawAction === 'labeled' || rawAction === 'unlabeled') detail = textAt(p, 'label', 'name');
  else if (rawAction === 'assigned' || rawAction === 'unassigned') detail = userName(p.assignee) ?? userName(issue.assignee);
  else if (rawAction === 'edited' && textAt(p, 'changes', 'title', 'from')) {
    detail = `title was "${oneLine(textAt(p, 'changes', 'title', 'from') ?? '', 80)}"`;
  }
  return {
    repository,
    number: num(issue.number) ?? num(p.number),
    title: str(issue.title),
    action,
    rawAction,
    detail,
    state: str(issue.state),
    stateReason: str(issue.state_reason),
    labels: labelNames(issue.labels),
    assignees: assigneeNames(issue.assignees, issue.assignee),
    author: userName(issue.user),
    actor,
    body: str(issue.body),
    comment,
    url: firstStr(at(p, 'comment', 'html_url'), issue.html_url, issue.url),
  };
}

function assigneeNames(many: unknown, one: unknown): string[] {
  const names = userNames(many);
  const single = userName(one);
  if (names.length === 0 && single !== undefined) names.push(single);
  return names;
}

const GITLAB_ACTIONS: Readonly<Record<string, string>> = { open: 'opened', close: 'closed', reopen: 'reopened' };

function gitlabIssue(payload: unknown, detected: ForgeEvent, repository?: string, actor?: string): Issue {
  const p = fields(payload);
  const isNote = detected.kind === 'issue_comment';
  const attrs = fields(isNote ? p.issue : p.object_attributes);
  const rawAction = textAt(p, 'object_attributes', 'action');
  let action = isNote ? 'commented on' : rawAction ? (lookup(GITLAB_ACTIONS, rawAction) ?? rawAction) : 'updated';
  let detail: string | undefined;
  if (rawAction === 'update') {
    const changes = fields(p.changes);
    if (isFields(changes.labels)) {
      const before = labelNames(at(changes, 'labels', 'previous'));
      const added = labelNames(at(changes, 'labels', 'current')).filter((l) => !before.includes(l));
      action = added.length > 0 ? 'labeled' : 'changed labels on';
      detail = nameList(added);
    } else if (isFields(changes.assignees)) {
      action = 'assigned';
      detail = nameList(userNames(at(changes, 'assignees', 'current')));
    } else if (isFields(changes.title) || isFields(changes.description)) {
      action = 'edited';
      detail = isFields(changes.title) ? 'title' : 'description';
    } else {
      action = 'updated';
    }
  }
  const labels = labelNames(p.labels);
  return {
    repository,
    number: num(attrs.iid),
    title: str(attrs.title),
    action,
    rawAction: isNote ? 'note' : rawAction,
    detail,
    state: str(attrs.state),
    labels: labels.length > 0 ? labels : labelNames(attrs.labels),
    assignees: userNames(p.assignees),
    actor,
    body: str(attrs.description),
    comment: isNote ? textAt(p, 'object_attributes', 'note') : undefined,
    url: firstStr(at(p, 'object_attributes', 'url'), attrs.url),
  };
}

function bitbucketIssue(payload: unknown, detected: ForgeEvent, repository?: string, actor?: string): Issue {
  const p = fields(payload);
  const issue = fields(p.issue);
  const newStatus = textAt(p, 'changes', 'status', 'new');
  let action = 'updated';
  if (detected.event === 'issue:created') action = 'opened';
  else if (detected.kind === 'issue_comment') action = 'commented on';
  else if (newStatus) action = `changed the status to ${newStatus} on`;
  const assignee = userName(issue.assignee);
  return {
    repository,
    number: num(issue.id),
    title: str(issue.title),
    action,
    rawAction: detected.event.slice(detected.event.indexOf(':') + 1),
    state: str(issue.state),
    labels: [str(issue.kind), str(issue.priority), textAt(issue, 'component', 'name')].filter((l) => l !== undefined),
    assignees: assignee ? [assignee] : [],
    author: userName(issue.reporter),
    actor,
    body: textAt(issue, 'content', 'raw'),
    comment: textAt(p, 'comment', 'content', 'raw'),
    url: firstStr(at(p, 'comment', 'links', 'html', 'href'), at(issue, 'links', 'html', 'href')),
  };
}

function renderIssue(issue: Issue, base: MetadataBase): TemplateResult {
  const locale = base.locale ?? 'en';
  const number = issue.number === undefined ? '' : ` #${issue.number}`;
  const name = issue.title ? `: ${oneLine(issue.title, 120)}` : '';
  const noun = t(locale, issue.noun ?? 'issue');
  const action = t(locale, issue.action);
  // Without an actor (Gogs's samples name nobody) the action goes in parentheses rather than "someone".
  const title = issue.actor
    ? `${repoPrefix(issue.repository)}${issue.actor} ${action} ${noun}${number}${name}`
    : `${repoPrefix(issue.repository)}${noun.charAt(0).toUpperCase()}${noun.slice(1)}${number} (${action})${name}`;
  const facts = factLines(
    [
    [(issue.noun ?? 'issue') === 'issue' ? 'Issue' : 'Pull request', `${number.trim() || t(locale, '(no number)')}${issue.title ? ` ${oneLine(issue.title, 300)}` : ''}`],
    ['Repository', issue.repository],
    ['Action', action + (issue.detail ? ` (${issue.detail})` : '')],
    ['State', issue.state ? issue.state + (issue.stateReason ? ` (${issue.stateReason})` : '') : undefined],
    ['Labels', nameList(issue.labels) ?? t(locale, 'none')],
    ['Assignees', nameList(issue.assignees) ?? t(locale, 'none')],
    ['Author', issue.author],
    ['By', issue.actor],
    ['URL', issue.url],
  ],
    locale,
  );
  const sections = [facts.join('\n')];
  if (issue.comment) sections.push(`**${t(locale, 'Comment')}:**\n${quote(excerpt(issue.comment))}`);
  if (issue.body) sections.push(quote(excerpt(issue.body)));
  const metadata = extraMetadata(base, {
    repository: issue.repository,
    number: issue.number,
    action: issue.rawAction ?? issue.action,
    state: issue.state,
    labels: issue.labels.slice(0, 50),
    assignees: issue.assignees.slice(0, 50),
    actor: issue.actor,
    url: issue.url,
  });
  return result(title, sections.join('\n\n'), metadata);
}

