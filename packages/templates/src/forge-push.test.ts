import { describe, expect, it } from '@jest/globals';
import { forgePush } from './forge-push.js';
import { expectFixtureRenderings, fixture, renderFixture, type Expectation } from './__tests__/fixtures.js';
import { cpuGrowth } from './__tests__/growth.js';

const render = (file: string, withHeaders = true) => renderFixture(forgePush, file, withHeaders);

const EXPECTED: Expectation[] = [
  {
    file: 'github-push-one_commit.json',
    title: '[Codertocat/Hello-World] Codertocat pushed 1 commit to master',
    content: ['**Repository:** Codertocat/Hello-World', '**Branch:** `master`', '**Pusher:** Codertocat', '**Commits:** 1', '* [`199eddf`](', ') Update README (Codertocat)'],
    metadata: { sender: 'github', event: 'push', branch: 'master', change: 'push', commit_count: 1, sha: '199eddf46df50de8d02e99bf1c5fdb4101338224' },
  },
  {
    file: 'github-push-many_commits.json',
    title: '[baxterthehacker/public-repo] baxterthehacker pushed 50 commits to changes',
    content: ['**Commits:** 50', '* [`0d1a26e`](', ') Update README.md (baxterthehacker)', '… and 30 more commits'],
    metadata: { sender: 'github', branch: 'changes', commit_count: 50 },
  },
  {
    file: 'github-push-tag_created.json',
    title: '[6543/test_ci_tmp] 6543 pushed new tag the-tag-v1',
    content: ['**Tag:** `the-tag-v1`', '**Change:** tag created'],
    metadata: { ref_type: 'tag', tag: 'the-tag-v1', change: 'create', ref: 'refs/tags/the-tag-v1' },
  },
  {
    file: 'github-push-branch_deleted.json',
    title: '[bradrydzewski/drone-test-go] bradrydzewski deleted branch feature-branch',
    content: ['**Branch:** `feature-branch`', '**Change:** branch deleted'],
    metadata: { change: 'delete', branch: 'feature-branch', commit_count: 0 },
  },
  {
    file: 'github-push-force_push.json',
    title: '[6543/oxiduct] 6543 force-pushed 1 commit to main',
    content: ['**Change:** branch force push', '* [`f7220f1`](', ') feat: initial implementation (6543)'],
    metadata: { change: 'force-push', branch: 'main', commit_count: 1 },
  },
  {
    file: 'github-push-new_branch_no_commits.json',
    title: '[bradrydzewski/drone-test-go] bradrydzewski created branch feature-branch',
    content: ['**Change:** branch created', '**Commits:** 0'],
    metadata: { change: 'create', branch: 'feature-branch', commit_count: 0 },
  },
  {
    file: 'github-push-force_push_no_commits.json',
    title: '[sbansal1999/zulip] sbansal1999 force-pushed temp (no new commits), head is now 9a8749e',
    content: ['**Change:** branch force push', '**Head:** `9a8749e`'],
    metadata: { change: 'force-push', commit_count: 0, sha: '9a8749ea8fe78a9cde773c60acf54f81f82c5d7e' },
  },
  {
    file: 'gitea-push-several_commits.json',
    title: '[Test-CI/multi-line-secrets] test-user pushed 3 commits to main',
    content: ['**Commits:** 3', '* [`29be01c`](', ') add some text (6543)'],
    metadata: { sender: 'gitea', commit_count: 3 },
  },
  {
    file: 'gitea-push-new_branch_one_commit.json',
    title: '[example/example] example created branch master with 1 commit',
    content: ['**Change:** branch created', '* [`67b5658`](', ') example (example)'],
    metadata: { sender: 'gitea', change: 'create', commit_count: 1 },
  },
  {
    file: 'gitea-create-tag.json',
    title: '[gordon/hello-world] gordon pushed new tag v1.0.0',
    content: ['**Tag:** `v1.0.0`', '**Change:** tag created'],
    metadata: { sender: 'gitea', event: 'create', ref_type: 'tag', tag: 'v1.0.0', change: 'create' },
  },
  {
    file: 'gitea-delete-branch.json',
    title: '[example/example] example deleted branch example3',
    content: ['**Branch:** `example3`', '**Change:** branch deleted'],
    metadata: { sender: 'gitea', event: 'delete', branch: 'example3', change: 'delete' },
  },
  {
    file: 'forgejo-push-several_commits.json',
    title: '[Test-CI/multi-line-secrets] test-user pushed 3 commits to main',
    content: ['**Commits:** 3'],
    metadata: { sender: 'forgejo', event: 'push', commit_count: 3 },
  },
  {
    file: 'gitlab-push-several_commits.json',
    title: '[gitlab-org/hello-world] sytses pushed 2 commits to master',
    content: ['**Commits:** 2', '* [`c4c7922`](', ') update readme (Sid Sijbrandij)'],
    metadata: { sender: 'gitlab', event: 'push', commit_count: 2 },
  },
  {
    // Upstream left total_commits_count at 2 beside 50 listed commits: the larger count wins.
    file: 'gitlab-push-many_commits.json',
    title: '[tomaszkolek0/my-awesome-project] Tomasz Kolek pushed 50 commits to tomek',
    content: ['**Commits:** 50', '… and 30 more commits'],
    metadata: { sender: 'gitlab', commit_count: 50 },
  },
  {
    file: 'gitlab-push-branch_deleted.json',
    title: '[gitlab-org/hello-world] sytses deleted branch feature',
    content: ['**Change:** branch deleted'],
    metadata: { change: 'delete', branch: 'feature' },
  },
  {
    file: 'gitlab-push-new_branch_no_commits.json',
    title: '[eeshangarg/my-awesome-project] Eeshan Garg created branch changes',
    content: ['**Change:** branch created', '**Commits:** 0'],
    metadata: { change: 'create', branch: 'changes', commit_count: 0 },
  },
  {
    file: 'gitlab-tag_push-created.json',
    title: '[gitlab-org/hello-world] sytses pushed new tag v1.0.0',
    content: ['**Tag:** `v1.0.0`', '**Change:** tag created', '* [`2adc946`](', ') added readme (Sid Sijbrandij)'],
    metadata: { event: 'tag_push', ref_type: 'tag', change: 'create' },
  },
  {
    file: 'gitlab-tag_push-deleted.json',
    title: '[gitlab-org/hello-world] sytses deleted tag v1.0.0',
    content: ['**Change:** tag deleted'],
    metadata: { event: 'tag_push', ref_type: 'tag', tag: 'v1.0.0', change: 'delete' },
  },
];

describe('forge-push on the shared fixtures', () => {
  expectFixtureRenderings(forgePush, EXPECTED);
  it.each(EXPECTED)('$file renders the same without its event header', ({ file }) => {
    const withHeader = render(file);
    const without = render(file, false);
    expect(without.title).toBe(withHeader.title);
    // Forgejo's payload is Gitea's; without the header it can only be told as Gitea.
    const { sender, ...rest } = without.extra_metadata;
    const { sender: expectedSender, ...expectedRest } = withHeader.extra_metadata;
    expect(rest).toEqual(expectedRest);
    expect(sender).toBe(expectedSender === 'forgejo' ? 'gitea' : expectedSender);
  });

  it('lists at most 20 commits', () => {
    const listed = render('github-push-many_commits.json').content.split('\n').filter((l) => l.startsWith('* '));
    expect(listed).toHaveLength(20);
  });

  it("never echoes Gitea's secret", () => {
    const f = fixture('gitea-create-tag.json');
    const secret = (f.payload as { secret: string }).secret;
    const r = forgePush.render(f.payload, f.headers);
    expect(`${r.title}\n${r.content}\n${JSON.stringify(r.extra_metadata)}`).not.toContain(secret);
  });
});

describe('forge-push beyond the fixtures', () => {
  const bitbucketPush = {
    actor: { display_name: 'Ada Lovelace', uuid: '{a}' },
    repository: { type: 'repository', full_name: 'ada/engine', links: { html: { href: 'https://bitbucket.org/ada/engine' } } },
    push: {
      changes: [
        {
          new: { type: 'branch', name: 'main', target: { hash: 'abcdef1234567890' } },
          old: { type: 'branch', name: 'main', target: { hash: '1234567890abcdef' } },
          created: false,
          closed: false,
          forced: false,
          truncated: true,
          commits: [
            { hash: 'abcdef1234567890', message: 'Fix the mill\n\nLonger text', author: { raw: 'Ada Lovelace <ada@example.com>' } },
          ],
          links: { html: { href: 'https://bitbucket.org/ada/engine/branches/compare/abcdef..123456' } },
        },
        { new: { type: 'tag', name: 'v2', target: { hash: 'abcdef1234567890' } }, old: null, created: true, commits: [] },
        { new: null, old: { type: 'branch', name: 'old-feature' }, closed: true, commits: [] },
      ],
    },
  };

  it('renders a Bitbucket Cloud push with several ref changes, marking a truncated commit list', () => {
    const r = forgePush.render(bitbucketPush, { 'x-event-key': 'repo:push' });
    expect(r.title).toBe('[ada/engine] Ada Lovelace pushed 1 commit to main (+2 more refs)');
    expect(r.content).toContain('**branch main**\n- **Branch:** `main`');
    expect(r.content).toContain('* `abcdef1` Fix the mill (Ada Lovelace)');
    expect(r.content).toContain('… and more commits (the sender truncated the list)');
    expect(r.content).toContain('**Change:** tag created');
    expect(r.content).toContain('**Branch:** `old-feature`\n- **Change:** branch deleted');
    expect(r.extra_metadata).toMatchObject({ sender: 'bitbucket', event: 'repo:push', branch: 'main', ref_changes: 3 });
  });

  it('detects a Bitbucket push without its header', () => {
    expect(forgePush.render(bitbucketPush, {}).extra_metadata).toMatchObject({ sender: 'bitbucket', event: 'repo:push' });
  });

  it('a push with zero commits is not an error', () => {
    const r = forgePush.render(
      { ref: 'refs/heads/main', before: 'a'.repeat(40), after: 'b'.repeat(40), commits: [], repository: { full_name: 'o/r' }, pusher: { name: 'p' } },
      { 'x-github-event': 'push' },
    );
    expect(r.title).toBe('[o/r] p pushed to main (no new commits)');
  });

  it('uses the sender total for "and N more" when the list is capped (GitLab sends 20 of 120)', () => {
    const commits = Array.from({ length: 20 }, (_, i) => ({ id: `${i}`.padStart(40, 'c'), message: `m${i}`, author: { name: 'a' } }));
    const r = forgePush.render(
      { object_kind: 'push', ref: 'refs/heads/x', before: '1', after: '2', total_commits_count: 120, commits, project: { path_with_namespace: 'g/p' }, user_username: 'u' },
      { 'x-gitlab-event': 'Push Hook' },
    );
    expect(r.title).toBe('[g/p] u pushed 120 commits to x');
    expect(r.content).toContain('… and 100 more commits');
  });

  it('renders a huge commit list in time at most linear in its length, and keeps only the first 20', () => {
    const message = 'x'.repeat(10_000);
    const push = (count: number) => ({ ref: 'refs/heads/big', commits: Array.from({ length: count }, (_, i) => ({ id: `${i}`, message, author: { name: '🦀 Ferris' } })), repository: { full_name: 'r' } });
    const r = forgePush.render(push(10_000), { 'x-github-event': 'push' });
    expect(r.content.split('\n').filter((l) => l.startsWith('* '))).toHaveLength(20);
    expect(r.content).toContain('… and 9980 more commits');
    // 2,500 commits and four times as many: linear costs at most 4 times as much, quadratic 16.
    const work = (count: number) => {
      const payload = push(count);
      return () => forgePush.render(payload, { 'x-github-event': 'push' });
    };
    expect(cpuGrowth(work, 2_500)).toBeLessThan(10);
  });

  it('renders other events of a known sender generically, flagged as unsupported', () => {
    const r = forgePush.render({ action: 'created', repository: { full_name: 'o/r' }, sender: { login: 'alice' } }, { 'x-github-event': 'star' });
    expect(r.title).toBe('[o/r] GitHub event `star` (created) by alice');
    expect(r.unsupported_event).toBe('star');
    expect(r.extra_metadata).toMatchObject({ sender: 'github', event: 'star', supported: false });
  });
});
