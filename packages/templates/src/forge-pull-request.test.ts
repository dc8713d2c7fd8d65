import { describe, expect, it } from '@jest/globals';
import { forgePullRequest } from './forge-pull-request.js';
import { expectFixtureRenderings, fixture, renderFixture, type Expectation } from './__tests__/fixtures.js';

const render = (file: string, withHeaders = true) => renderFixture(forgePullRequest, file, withHeaders);

const README = 'Update the README with new information.';

const EXPECTED: Expectation[] = [
  {
    file: 'github-pull_request-opened.json',
    title: `[Codertocat/Hello-World] Codertocat opened pull request #2: ${README} (changes → master)`,
    content: ['**Merge status:** open', '**Branches:** `changes` → `master`', '**Action:** opened'],
    metadata: { sender: 'github', event: 'pull_request', number: 2, action: 'opened', merge_status: 'open', head_branch: 'changes', base_branch: 'master' },
  },
  {
    file: 'github-pull_request-closed_unmerged.json',
    title: `[Codertocat/Hello-World] Codertocat closed pull request #2 without merging: ${README} (changes → master)`,
    content: ['**Merge status:** closed without merge', '**Action:** closed without merging (closed)'],
    metadata: { action: 'closed', merge_status: 'closed' },
  },
  {
    file: 'github-pull_request-closed_merged.json',
    title: '[anbraten/test-ready-release-go] anbraten merged pull request #62: Change file (anbraten-patch-3 → main)',
    content: ['**Merge status:** merged', '**Branches:** `anbraten-patch-3` → `main`'],
    metadata: { number: 62, action: 'closed', merge_status: 'merged' },
  },
  {
    file: 'github-pull_request-synchronize.json',
    title: `[Codertocat/Hello-World] Codertocat pushed to pull request #2: ${README} (changes → master)`,
    content: ['**Merge status:** open', '**Action:** pushed to (synchronize)', '**Head commit:** `ec26c3e`'],
    metadata: { action: 'synchronize', merge_status: 'open' },
  },
  {
    file: 'gitea-pull_request-opened.json',
    title: '[jcitizen/my-repo] jcitizen opened pull request #1: Add License File (feature → master)',
    content: ['**Merge status:** open', '> Using a BSD License'],
    metadata: { sender: 'gitea', number: 1, action: 'opened', merge_status: 'open' },
  },
  {
    file: 'gitea-pull_request-closed_merged.json',
    title: '[anbraten/test-repo] anbraten merged pull request #1: Adjust file (anbraten-patch-1 → main)',
    content: ['**Merge status:** merged', '**Branches:** `anbraten-patch-1` → `main`'],
    metadata: { sender: 'gitea', merge_status: 'merged' },
  },
  {
    file: 'gitea-pull_request-synchronized.json',
    title: '[jcitizen/my-repo] jcitizen pushed to pull request #1: Add License File (feature → master)',
    content: ['**Merge status:** open', '**Action:** pushed to (synchronized)'],
    metadata: { sender: 'gitea', action: 'synchronized', merge_status: 'open' },
  },
  {
    file: 'gitea-pull_request-reopened.json',
    title: '[jcitizen/my-repo] jcitizen reopened pull request #1: Add LICENSE File (feature → master)',
    content: ['**Merge status:** open', '**Action:** reopened'],
    metadata: { sender: 'gitea', action: 'reopened', merge_status: 'open' },
  },
  {
    file: 'forgejo-pull_request-closed_merged.json',
    title: '[anbraten/test-repo] anbraten merged pull request #1: Adjust file (anbraten-patch-1 → main)',
    content: ['**Merge status:** merged'],
    metadata: { sender: 'forgejo', merge_status: 'merged' },
  },
  {
    file: 'gitlab-merge_request-opened.json',
    title:
      '[demoaccount2-commits-group/test_ci_tmp] real6543 opened merge request !3: Edit README.md for more text to read (real6543-main-patch-42541 → main)',
    content: ['**Merge status:** open', '**Merge request:** !3 Edit README.md for more text to read', '**Labels:** documentation'],
    metadata: { sender: 'gitlab', event: 'merge_request', number: 3, action: 'open', merge_status: 'open' },
  },
  {
    // merge_status "can_be_merged" sits in this payload too; the state decides.
    file: 'gitlab-merge_request-merged.json',
    title: '[gitlab-org/hello-world] sytses merged merge request !1: update readme (feature → master)',
    content: ['**Merge status:** merged', '**Branches:** `feature` → `master`'],
    metadata: { action: 'merge', merge_status: 'merged' },
  },
  {
    file: 'gitlab-merge_request-closed.json',
    title: '[gitlab-org/hello-world] sytses closed merge request !1 without merging: update readme (feature → master)',
    content: ['**Merge status:** closed without merge'],
    metadata: { action: 'close', merge_status: 'closed' },
  },
  {
    file: 'bitbucket-pullrequest-created.json',
    title: '[brydzewski/foo] brydzewski opened pull request #1: Awesome new feature (develop → master)',
    content: ['**Merge status:** open', '> made some changes'],
    metadata: { sender: 'bitbucket', event: 'pullrequest:created', number: 1, merge_status: 'open' },
  },
  {
    file: 'bitbucket-pullrequest-fulfilled.json',
    title: '[brydzewski/foo] brydzewski merged pull request #1: Awesome new feature (develop → master)',
    content: ['**Merge status:** merged'],
    metadata: { sender: 'bitbucket', event: 'pullrequest:fulfilled', merge_status: 'merged' },
  },
];

describe('forge-pull-request on the shared fixtures', () => {
  expectFixtureRenderings(forgePullRequest, EXPECTED);
  it.each(EXPECTED)('$file renders the same title without its event header', ({ file }) => {
    expect(render(file, false).title).toBe(render(file).title);
  });

  it.each(EXPECTED.filter((e) => e.metadata.merge_status !== 'merged'))('$file never says merged', ({ file }) => {
    const r = render(file);
    expect(r.title).not.toMatch(/\bmerged\b/);
    expect(r.content).not.toMatch(/Merge status: merged/);
  });
});

describe('forge-pull-request beyond the fixtures', () => {
  const azure = (eventType: string, resource: Record<string, unknown>) => ({
    eventType,
    publisherId: 'tfs',
    message: { text: 'Jamal Hartnett updated the source branch' },
    resource: {
      repository: { name: 'Fabrikam', project: { name: 'Fabrikam-Fiber-Git' } },
      pullRequestId: 1,
      title: 'my first pull request',
      description: ' - test2\r\n',
      sourceRefName: 'refs/heads/mytopic',
      targetRefName: 'refs/heads/master',
      createdBy: { displayName: 'Jamal Hartnett' },
      _links: { web: { href: 'https://dev.azure.com/fabrikam/_git/Fabrikam/pullrequest/1' } },
      ...resource,
    },
  });

  it('Azure DevOps: a succeeded merge check on an active PR is not a merge', () => {
    const r = forgePullRequest.render(azure('git.pullrequest.merged', { status: 'active', mergeStatus: 'succeeded' }), {});
    expect(r.title).toBe(
      '[Fabrikam-Fiber-Git/Fabrikam] Jamal Hartnett attempted to merge pull request #1: my first pull request (mytopic → master)',
    );
    expect(r.content).toContain('**Merge status:** open');
    expect(r.extra_metadata).toMatchObject({ sender: 'azure-devops', event: 'git.pullrequest.merged', merge_status: 'open' });
  });

  it('Azure DevOps: a completed PR is merged, an abandoned one closed, a draft is a draft', () => {
    expect(forgePullRequest.render(azure('git.pullrequest.updated', { status: 'completed' }), {}).content).toContain('**Merge status:** merged');
    const abandoned = forgePullRequest.render(azure('git.pullrequest.updated', { status: 'abandoned' }), {});
    expect(abandoned.content).toContain('**Merge status:** closed without merge');
    expect(abandoned.title).toContain('abandoned pull request #1');
    const draft = forgePullRequest.render(azure('git.pullrequest.created', { status: 'active', isDraft: true }), {});
    expect(draft.title).toContain('opened pull request #1');
    expect(draft.content).toContain('**Merge status:** draft');
  });

  it('a GitHub draft pull request says draft', () => {
    const pr = fixture('github-pull_request-opened.json').payload as { pull_request: Record<string, unknown> };
    const r = forgePullRequest.render({ ...pr, pull_request: { ...pr.pull_request, draft: true } }, { 'x-github-event': 'pull_request' });
    expect(r.content).toContain('**Merge status:** draft');
    expect(r.extra_metadata.merge_status).toBe('draft');
  });

  it('a GitLab merge action whose state is not merged does not claim a merge', () => {
    const mr = fixture('gitlab-merge_request-merged.json').payload as { object_attributes: Record<string, unknown> };
    const r = forgePullRequest.render({ ...mr, object_attributes: { ...mr.object_attributes, state: 'opened' } }, { 'x-gitlab-event': 'Merge Request Hook' });
    expect(r.title).not.toMatch(/\bmerged\b/);
    expect(r.content).toContain('**Merge status:** open');
  });

  it('an issues payload posted to the pull-request template is an unsupported event', () => {
    const f = fixture('github-issues-opened.json');
    const r = forgePullRequest.render(f.payload, f.headers);
    expect(r.unsupported_event).toBe('issues');
    expect(r.title).toBe('[Codertocat/Hello-World] GitHub event `issues` (opened) by Codertocat');
  });
});
