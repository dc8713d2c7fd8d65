import { at, fields, firstStr, isFields, isTrue, list, lookup, num, str, textAt } from './field-access.js';
import { renderForgeEvent } from './forge-event.js';
import { actorName, labelNames, repositoryName, userName, type ForgeEvent } from './forge-sender.js';
import { extraMetadata, repoPrefix, result, type MetadataBase } from './template-result.js';
import { code, escapeMd, Md } from './markdown.js';
import { branchName, excerpt, factLines, nameList, oneLine, quote, sha7 } from './text-format.js';
import type { Headers, Template, TemplateResult } from './types.js';
import { t, type Locale } from './locale.js';

export const FORGE_PULL_REQUEST_VERSION = 3;

/** Merge status in plain words. Only a sender's own "this was merged" makes `merged`. */
export type MergeStatus = 'merged' | 'closed' | 'open' | 'draft';

const STATUS_WORDS: Readonly<Record<MergeStatus, string>> = {
  merged: 'merged',
  closed: 'closed without merge',
  open: 'open',
  draft: 'draft',
};

interface PullRequest {
  repository?: string;
  number?: number;
  /** GitLab says !3 for merge requests, everyone else #3. */
  marker: '#' | '!';
  noun: string;
  title?: string;
  action: string;
  rawAction?: string;
  /** Left out when the payload does not say (a comment's issue, a sample with no real state). */
  status?: MergeStatus;
  head?: string;
  base?: string;
  sha?: string;
  author?: string;
  actor?: string;
  labels: string[];
  body?: string;
  url?: string;
  /** A review of the pull request or a comment in it, when that is the event. */
  activity?: Activity;
}

/** A review (approved, changes requested…) or a comment on a pull request: who, what, first lines. */
interface Activity {
  kind: 'review' | 'review-comment' | 'comment' | 'thread';
  /** Review state in plain words: approved, changes requested, commented, dismissed. */
  state?: string;
  /** created, edited, deleted, submitted, dismissed… as the sender says it. */
  action?: string;
  by?: string;
  body?: string;
  path?: string;
  url?: string;
}

export const forgePullRequest: Template = {
  id: 'forge-pull-request',
  title: 'Pull request events',
  description: 'Pull/merge requests: number, title, action, head → base branches and merge status in plain words.',
  senders: ['GitHub', 'GitLab', 'Gitea', 'Forgejo', 'Bitbucket Cloud', 'Azure DevOps Repos'],
  render(payload: unknown, headers: Headers, locale: Locale = 'en'): TemplateResult {
    return renderForgeEvent({ id: 'forge-pull-request', version: FORGE_PULL_REQUEST_VERSION }, payload, headers, readAny, renderPullRequest, locale);
  },
};

function readAny(payload: unknown, detected: ForgeEvent): PullRequest | undefined {
  if (detected.kind === 'pull_request') return readPullRequest(payload, detected);
  if (detected.kind === 'pull_request_review') return readReview(payload, detected);
  if (detected.kind === 'pull_request_comment') return readComment(payload, detected);
  return undefined;
}

const REVIEW_STATES: Readonly<Record<string, string>> = {
  approved: 'approved',
  changes_requested: 'changes requested',
  commented: 'commented',
  dismissed: 'dismissed',
  pending: 'pending',
  // Gitea's review types and event names.
  pull_request_review_approved: 'approved',
  pull_request_review_rejected: 'changes requested',
  pull_request_review_comment: 'commented',
  pull_request_approved: 'approved',
  pull_request_rejected: 'changes requested',
  pull_request_comment: 'commented',
  // Bitbucket's event keys.
  'pullrequest:approved': 'approved',
  'pullrequest:unapproved': 'approval withdrawn',
  'pullrequest:changes_request_created': 'changes requested',
  'pullrequest:changes_request_removed': 'change request withdrawn',
  'pullrequest:approval': 'approval changed',
};

/** GitHub pull_request_review(_comment), Gitea reviews, Bitbucket approvals. */
function readReview(payload: unknown, detected: ForgeEvent): PullRequest {
  const pr = readPullRequest(payload, detected);
  const p = fields(payload);
  if (detected.sender === 'bitbucket') {
    return {
      ...pr,
      activity: { kind: 'review', state: lookup(REVIEW_STATES, detected.event), by: firstStr(userName(at(p, 'approval', 'user')), pr.actor) },
    };
  }
  if (isFields(p.thread)) {
    // pull_request_review_thread: a conversation on the code marked resolved or unresolved.
    const first = fields(list(at(p, 'thread', 'comments'))[0]);
    return {
      ...pr,
      activity: { kind: 'thread', action: str(p.action), by: pr.actor, body: str(first.body), path: str(first.path), url: str(first.html_url) },
    };
  }
  const comment = fields(p.comment);
  if (isFields(p.comment) && !isFields(p.review)) {
    return {
      ...pr,
      activity: {
        kind: 'review-comment',
        action: str(p.action),
        by: firstStr(userName(comment.user), pr.actor),
        body: str(comment.body),
        path: str(comment.path),
        url: str(comment.html_url),
      },
    };
  }
  const review = fields(p.review);
  const rawState = firstStr(review.state, review.type, detected.event)?.toLowerCase();
  return {
    ...pr,
    activity: {
      kind: 'review',
      state: rawState ? (lookup(REVIEW_STATES, rawState) ?? rawState.replace(/_/g, ' ')) : undefined,
      action: str(p.action),
      by: firstStr(userName(review.user), pr.actor),
      body: firstStr(review.body, review.content),
      url: str(review.html_url),
    },
  };
}

/** A comment on a pull/merge request's conversation, whichever forge sent it. */
function readComment(payload: unknown, detected: ForgeEvent): PullRequest {
  const p = fields(payload);
  const repository = repositoryName(payload, detected.sender);
  const actor = actorName(payload, detected.sender);
  switch (detected.sender) {
    case 'gitlab': {
      const mr = fields(p.merge_request);
      const note = fields(p.object_attributes);
      const base = gitlabMergeRequest({ ...p, object_attributes: mr }, repository, actor);
      return {
        ...base,
        action: 'commented on',
        rawAction: 'note',
        activity: { kind: 'comment', by: actor, body: str(note.note), path: textAt(note, 'position', 'new_path'), url: str(note.url) },
      };
    }
    case 'bitbucket': {
      const base = bitbucketPullRequest(payload, 'pullrequest:updated', repository, actor);
      const c = fields(p.comment);
      const action = detected.event.startsWith('pullrequest:comment_') ? detected.event.slice('pullrequest:comment_'.length) : 'created';
      return {
        ...base,
        rawAction: detected.event.startsWith('pullrequest:') ? detected.event.slice('pullrequest:'.length) : undefined,
        activity: {
          kind: 'comment',
          action,
          by: firstStr(userName(c.user), actor),
          body: textAt(c, 'content', 'raw'),
          path: textAt(c, 'inline', 'path'),
          url: textAt(c, 'links', 'html', 'href'),
        },
      };
    }
    case 'azure-devops': {
      const r = fields(p.resource);
      const base = azurePullRequest({ ...p, resource: r.pullRequest }, 'git.pullrequest.updated', repository, actor);
      const c = fields(r.comment);
      return {
        ...base,
        rawAction: 'comment',
        activity: {
          kind: 'comment',
          action: isTrue(c.isDeleted) ? 'deleted' : undefined,
          by: firstStr(at(c, 'author', 'displayName'), actor),
          body: str(c.content),
          url: textAt(c, '_links', 'self', 'href'),
        },
      };
    }
    default: {
      // GitHub, Gitea, Gogs: issue_comment whose issue is a pull request; the issue carries the PR's number and title.
      const issue = fields(p.issue);
      const c = fields(p.comment);
      const state = str(issue.state);
      const mergedAt = at(issue, 'pull_request', 'merged_at');
      return {
        repository,
        number: num(issue.number),
        marker: '#',
        noun: 'pull request',
        title: str(issue.title),
        action: 'commented on',
        rawAction: str(p.action),
        // The issue's state does not tell merged from closed: only say what it does tell.
        status: typeof mergedAt === 'string' ? 'merged' : state === 'open' ? 'open' : undefined,
        author: userName(issue.user),
        actor,
        labels: labelNames(issue.labels),
        url: firstStr(at(issue, 'pull_request', 'html_url'), issue.html_url),
        activity: { kind: 'comment', action: str(p.action), by: firstStr(userName(c.user), actor), body: str(c.body), url: str(c.html_url) },
      };
    }
  }
}

function readPullRequest(payload: unknown, detected: ForgeEvent): PullRequest {
  const repository = repositoryName(payload, detected.sender);
  const actor = actorName(payload, detected.sender);
  switch (detected.sender) {
    case 'gitlab':
      return gitlabMergeRequest(payload, repository, actor);
    case 'bitbucket':
      return bitbucketPullRequest(payload, detected.event, repository, actor);
    case 'azure-devops':
      return azurePullRequest(payload, detected.event, repository, actor);
    default:
      return githubLikePullRequest(payload, repository, actor);
  }
}

/** The verb for an action, checked against the merge status so "merged" is never claimed wrongly. */
function verb(action: string | undefined, status: MergeStatus | undefined, words: Readonly<Record<string, string>>): string {
  if (status === 'merged' && ['closed', 'close', 'merge', 'merged', 'fulfilled'].includes(action ?? '')) {
    return 'merged';
  }
  if (action === 'closed' || action === 'close' || action === 'rejected') return 'closed without merging';
  if (action === 'merge' || action === 'merged') return 'attempted to merge';
  if (action === undefined) return 'updated';
  return lookup(words, action) ?? action.replace(/_/g, ' ');
}

const GITHUB_ACTIONS: Readonly<Record<string, string>> = {
  synchronize: 'pushed to',
  synchronized: 'pushed to',
  ready_for_review: 'marked ready for review',
  converted_to_draft: 'converted to draft',
  review_requested: 'requested review on',
  review_request_removed: 'removed a review request from',
  auto_merge_enabled: 'enabled auto-merge on',
  auto_merge_disabled: 'disabled auto-merge on',
  label_updated: 'updated labels on',
  label_cleared: 'cleared labels on',
};

function githubLikePullRequest(payload: unknown, repository?: string, actor?: string): PullRequest {
  const p = fields(payload);
  const pr = fields(p.pull_request);
  const title = str(pr.title);
  const state = str(pr.state);
  const status: MergeStatus = isTrue(pr.merged)
    ? 'merged'
    : state === 'closed'
      ? 'closed'
      : isTrue(pr.draft) || (title !== undefined && /^\s*(\[wip\]|wip:|draft:)/i.test(title))
        ? 'draft'
        : 'open';
  const action = str(p.action);
  return {
    repository,
    number: num(pr.number) ?? num(p.number),
    marker: '#',
    noun: 'pull request',
    title,
    action: verb(action, status, GITHUB_ACTIONS),
    rawAction: action,
    status,
    // Gogs names the branches head_branch/base_branch.
    head: firstStr(at(pr, 'head', 'ref'), at(pr, 'head', 'label'), pr.head_branch),
    base: firstStr(at(pr, 'base', 'ref'), at(pr, 'base', 'label'), pr.base_branch),
    sha: firstStr(at(pr, 'head', 'sha'), p.after),
    author: userName(pr.user),
    actor,
    labels: labelNames(pr.labels),
    body: str(pr.body),
    url: firstStr(pr.html_url, pr.url),
  };
}

const GITLAB_ACTIONS: Readonly<Record<string, string>> = {
  open: 'opened',
  reopen: 'reopened',
  update: 'updated',
  approved: 'approved',
  unapproved: 'unapproved',
  approval: 'approved',
  unapproval: 'withdrew approval from',
};

function gitlabMergeRequest(payload: unknown, repository?: string, actor?: string): PullRequest {
  const p = fields(payload);
  const mr = fields(p.object_attributes);
  const state = str(mr.state);
  const action = str(mr.action);
  // `merge_status: can_be_merged` is a mergeability check, not a merge: only state says merged.
  const status: MergeStatus =
    state === 'merged'
      ? 'merged'
      : state === 'closed' || state === 'locked'
        ? 'closed'
        : isTrue(mr.draft) || isTrue(mr.work_in_progress)
          ? 'draft'
          : 'open';
  const labels = labelNames(p.labels);
  return {
    repository,
    number: num(mr.iid),
    marker: '!',
    noun: 'merge request',
    title: str(mr.title),
    action: verb(action, status, GITLAB_ACTIONS),
    rawAction: action,
    status,
    head: str(mr.source_branch),
    base: str(mr.target_branch),
    sha: firstStr(at(mr, 'last_commit', 'id'), mr.merge_commit_sha),
    author: userName(at(p, 'object_attributes', 'author')),
    actor,
    labels: labels.length > 0 ? labels : labelNames(mr.labels),
    body: str(mr.description),
    url: str(mr.url),
  };
}

const BITBUCKET_ACTIONS: Readonly<Record<string, string>> = {
  created: 'opened',
  updated: 'updated',
  approved: 'approved',
  unapproved: 'withdrew approval from',
  changes_request_created: 'requested changes on',
  changes_request_removed: 'withdrew the change request on',
};

function bitbucketPullRequest(payload: unknown, event: string, repository?: string, actor?: string): PullRequest {
  const pr = fields(at(payload, 'pullrequest'));
  const state = str(pr.state);
  const action = event.startsWith('pullrequest:') ? event.slice('pullrequest:'.length) : undefined;
  // The event key wins over the body's state: Bitbucket's own samples send "OPEN|MERGED|DECLINED".
  const status: MergeStatus | undefined =
    action === 'fulfilled' || state === 'MERGED'
      ? 'merged'
      : action === 'rejected' || state === 'DECLINED' || state === 'SUPERSEDED'
        ? 'closed'
        : state !== 'OPEN'
          ? undefined
          : isTrue(pr.draft)
            ? 'draft'
            : 'open';
  return {
    repository,
    number: num(pr.id),
    marker: '#',
    noun: 'pull request',
    title: str(pr.title),
    action: verb(action, status, BITBUCKET_ACTIONS),
    rawAction: action,
    status,
    head: textAt(pr, 'source', 'branch', 'name'),
    base: textAt(pr, 'destination', 'branch', 'name'),
    sha: textAt(pr, 'source', 'commit', 'hash'),
    author: userName(pr.author),
    actor,
    labels: [],
    body: firstStr(pr.description, at(pr, 'summary', 'raw')),
    url: textAt(pr, 'links', 'html', 'href'),
  };
}

function azurePullRequest(payload: unknown, event: string, repository?: string, actor?: string): PullRequest {
  const pr = fields(at(payload, 'resource'));
  const state = str(pr.status);
  // A completed Azure DevOps pull request is merged; `mergeStatus: succeeded` alone is not.
  const status: MergeStatus =
    state === 'completed' ? 'merged' : state === 'abandoned' ? 'closed' : isTrue(pr.isDraft) ? 'draft' : 'open';
  const suffix = event.slice(event.lastIndexOf('.') + 1);
  const action = suffix === 'updated' && status === 'merged' ? 'completed' : suffix;
  const words: Record<string, string> = { created: 'opened', updated: 'updated', completed: 'completed (merged)' };
  return {
    repository,
    number: num(pr.pullRequestId),
    marker: '#',
    noun: 'pull request',
    title: str(pr.title),
    action: action === 'updated' && status === 'closed' ? 'abandoned' : verb(action, status, words),
    rawAction: suffix,
    status,
    head: branchName(str(pr.sourceRefName)),
    base: branchName(str(pr.targetRefName)),
    sha: textAt(pr, 'lastMergeSourceCommit', 'commitId'),
    author: userName(pr.createdBy),
    actor: actor ?? userName(pr.createdBy),
    labels: labelNames(pr.labels),
    body: str(pr.description),
    url: firstStr(at(pr, '_links', 'web', 'href'), pr.url),
  };
}

const REVIEW_VERBS: Readonly<Record<string, string>> = {
  approved: 'approved',
  'changes requested': 'requested changes on',
  commented: 'reviewed',
  dismissed: 'dismissed a review of',
  'approval withdrawn': 'withdrew approval from',
  'change request withdrawn': 'withdrew the change request on',
  'approval changed': 'approved or withdrew approval of',
};

const COMMENT_VERBS: Readonly<Record<string, string>> = {
  created: 'commented on',
  edited: 'edited a comment on',
  updated: 'edited a comment on',
  deleted: 'deleted a comment on',
};

/** The verb phrase of a review or comment event. */
function activityVerb(activity: Activity): string {
  if (activity.kind === 'thread') return activity.action === 'unresolved' ? 'reopened a review thread on' : 'resolved a review thread on';
  if (activity.kind === 'review') {
    if (activity.action === 'dismissed') return 'dismissed a review of';
    if (activity.action === 'edited') return 'edited a review of';
    return (activity.state && lookup(REVIEW_VERBS, activity.state)) ?? 'reviewed';
  }
  const verbWord = (activity.action && lookup(COMMENT_VERBS, activity.action)) ?? 'commented on';
  return activity.kind === 'review-comment' && verbWord === 'commented on' ? 'commented on the code of' : verbWord;
}

function renderPullRequest(pr: PullRequest, base: MetadataBase): TemplateResult {
  const locale = base.locale ?? 'en';
  const number = pr.number === undefined ? '' : ` ${pr.marker}${pr.number}`;
  const branches = pr.head || pr.base ? `${pr.head ?? '?'} → ${pr.base ?? '?'}` : undefined;
  const activity = pr.activity;
  const actor = activity?.by ?? pr.actor;
  // "closed pull request #2 without merging" reads better than the verb phrase in one piece.
  const action = activity ? activityVerb(activity) : pr.action;
  const [verbWord, after] =
    action !== 'closed without merging' ? [t(locale, action), ''] : locale === 'en' ? ['closed', ' without merging'] : [t(locale, 'closed'), ` ${t(locale, 'closed without merging').split(' ').slice(1).join(' ')}`];
  const noun = t(locale, pr.noun);
  // Without an actor (Gogs's samples) the action goes in parentheses rather than "someone".
  const title =
    (actor
      ? `${repoPrefix(pr.repository)}${actor} ${verbWord} ${noun}${number}${after}`
      : `${repoPrefix(pr.repository)}${capital(noun)}${number} (${t(locale, action)})`) +
    `${pr.title ? `: ${oneLine(pr.title, 120)}` : ''}${branches && !activity ? ` (${branches})` : ''}`;
  const facts = factLines(
    [
    [capital(pr.noun), `${number.trim() || t(locale, '(no number)')}${pr.title ? ` ${oneLine(pr.title, 300)}` : ''}`],
    ['Repository', pr.repository],
    ['Action', pr.rawAction && pr.rawAction !== action ? `${action} (${pr.rawAction})` : action],
    ['Review', activity?.kind === 'review' ? activity.state : undefined],
    ['File', activity?.path],
    ['Branches', pr.head || pr.base ? new Md(`${code(pr.head ?? '?').text} → ${code(pr.base ?? '?').text}`) : undefined],
    ['Merge status', pr.status ? t(locale, STATUS_WORDS[pr.status]) : undefined],
    ['Head commit', pr.sha ? code(sha7(pr.sha)) : undefined],
    ['Labels', nameList(pr.labels)],
    ['Author', pr.author],
    ['By', actor],
    ['URL', activity?.url ?? pr.url],
  ],
    locale,
  );
  const sections = [facts.join('\n')];
  if (activity?.body) {
    const label = activity.kind === 'review' ? 'Review' : activity.kind === 'thread' ? 'First comment of the thread' : 'Comment';
    const by = activity.by && activity.kind !== 'thread' ? ` by ${oneLine(activity.by, 60)}` : '';
    sections.push(`**${escapeMd(`${label}${by}`)}:**\n${quote(excerpt(activity.body))}`);
  }
  else if (pr.body && !activity) sections.push(quote(excerpt(pr.body)));
  const metadata = extraMetadata(base, {
    repository: pr.repository,
    number: pr.number,
    action: activity?.action ?? pr.rawAction,
    merge_status: pr.status,
    head_branch: pr.head,
    base_branch: pr.base,
    sha: pr.sha,
    actor,
    review_state: activity?.kind === 'review' ? activity.state : undefined,
    comment_url: activity && activity.kind !== 'review' ? activity.url : undefined,
    url: pr.url,
  });
  return result(title, sections.join('\n\n'), metadata);
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
