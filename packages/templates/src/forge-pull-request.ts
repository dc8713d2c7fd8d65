import { at, fields, firstStr, isTrue, lookup, num, str, textAt } from './field-access.js';
import { renderForgeEvent } from './forge-event.js';
import { actorName, labelNames, repositoryName, userName, type ForgeEvent } from './forge-sender.js';
import { extraMetadata, repoPrefix, result, type MetadataBase } from './template-result.js';
import { branchName, excerpt, factLines, nameList, oneLine, quote, sha7 } from './text-format.js';
import type { Headers, Template, TemplateResult } from './types.js';

export const FORGE_PULL_REQUEST_VERSION = 1;

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
  status: MergeStatus;
  head?: string;
  base?: string;
  sha?: string;
  author?: string;
  actor?: string;
  labels: string[];
  body?: string;
  url?: string;
}

export const forgePullRequest: Template = {
  id: 'forge-pull-request',
  title: 'Pull request events',
  description: 'Pull/merge requests: number, title, action, head → base branches and merge status in plain words.',
  senders: ['GitHub', 'GitLab', 'Gitea', 'Forgejo', 'Bitbucket Cloud', 'Azure DevOps Repos'],
  render(payload: unknown, headers: Headers): TemplateResult {
    return renderForgeEvent(
      { id: 'forge-pull-request', version: FORGE_PULL_REQUEST_VERSION },
      payload,
      headers,
      (p, detected) => (detected.kind === 'pull_request' ? readPullRequest(p, detected) : undefined),
      renderPullRequest,
    );
  },
};

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
function verb(action: string | undefined, status: MergeStatus, words: Readonly<Record<string, string>>): string {
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
    head: firstStr(at(pr, 'head', 'ref'), at(pr, 'head', 'label')),
    base: firstStr(at(pr, 'base', 'ref'), at(pr, 'base', 'label')),
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
  const status: MergeStatus =
    state === 'MERGED' ? 'merged' : state === 'DECLINED' || state === 'SUPERSEDED' ? 'closed' : isTrue(pr.draft) ? 'draft' : 'open';
  const action = event.startsWith('pullrequest:') ? event.slice('pullrequest:'.length) : undefined;
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

function renderPullRequest(pr: PullRequest, base: MetadataBase): TemplateResult {
  const number = pr.number === undefined ? '' : ` ${pr.marker}${pr.number}`;
  const branches = pr.head || pr.base ? `${pr.head ?? '?'} → ${pr.base ?? '?'}` : undefined;
  // "closed pull request #2 without merging" reads better than the verb phrase in one piece.
  const [verbWord, after] = pr.action === 'closed without merging' ? ['closed', ' without merging'] : [pr.action, ''];
  const title =
    `${repoPrefix(pr.repository)}${pr.actor ?? 'someone'} ${verbWord} ${pr.noun}${number}${after}` +
    `${pr.title ? `: ${oneLine(pr.title, 120)}` : ''}${branches ? ` (${branches})` : ''}`;
  const facts = factLines([
    [pr.noun[0]!.toUpperCase() + pr.noun.slice(1), `${number.trim() || '(no number)'}${pr.title ? ` ${oneLine(pr.title, 300)}` : ''}`],
    ['Repository', pr.repository],
    ['Action', pr.rawAction && pr.rawAction !== pr.action ? `${pr.action} (${pr.rawAction})` : pr.action],
    ['Branches', branches],
    ['Merge status', STATUS_WORDS[pr.status]],
    ['Head commit', pr.sha ? sha7(pr.sha) : undefined],
    ['Labels', nameList(pr.labels)],
    ['Author', pr.author],
    ['By', pr.actor],
    ['URL', pr.url],
  ]);
  const sections = [facts.join('\n')];
  if (pr.body) sections.push(quote(excerpt(pr.body)));
  const metadata = extraMetadata(base, {
    repository: pr.repository,
    number: pr.number,
    action: pr.rawAction,
    merge_status: pr.status,
    head_branch: pr.head,
    base_branch: pr.base,
    sha: pr.sha,
    actor: pr.actor,
    url: pr.url,
  });
  return result(title, sections.join('\n\n'), metadata);
}
