import { describe, expect, it } from '@jest/globals';
import { forgeIssues } from './forge-issues.js';
import { expectFixtureRenderings, fixture, renderFixture, type Expectation } from './__tests__/fixtures.js';

const render = (file: string, withHeaders = true) => renderFixture(forgeIssues, file, withHeaders);

const SPELLING = "> It looks like you accidently spelled 'commit' with two 't's.";

const EXPECTED: Expectation[] = [
  {
    file: 'github-issues-opened.json',
    title: '[Codertocat/Hello-World] Codertocat opened issue #1: Spelling error in the README file',
    content: ['**Issue:** #1 Spelling error in the README file', '**Action:** opened', '**State:** open', '**Labels:** bug', '**Assignees:** Codertocat', SPELLING],
    metadata: { sender: 'github', event: 'issues', number: 1, action: 'opened', state: 'open', labels: ['bug'], assignees: ['Codertocat'] },
  },
  {
    file: 'github-issues-labeled.json',
    title: '[Codertocat/Hello-World] Codertocat labeled issue #1: Spelling error in the README file',
    content: ['**Action:** labeled (bug)', '**Labels:** bug'],
    metadata: { action: 'labeled', labels: ['bug'] },
  },
  {
    file: 'github-issues-assigned.json',
    title: '[Codertocat/Hello-World] Codertocat assigned issue #1: Spelling error in the README file',
    content: ['**Action:** assigned (Codertocat)', '**Assignees:** Codertocat'],
    metadata: { action: 'assigned', assignees: ['Codertocat'] },
  },
  {
    file: 'github-issues-closed.json',
    title: '[Pritesh-30/test-repo] Pritesh-30 closed issue #8: Bug related to the bot',
    content: ['**State:** closed (completed)', '**Labels:** none', '**Assignees:** none'],
    metadata: { number: 8, action: 'closed', state: 'closed' },
  },
  {
    file: 'gitea-issues-opened.json',
    title: '[example/example] example opened issue #1: example',
    content: ['**Action:** opened', '**State:** open'],
    metadata: { sender: 'gitea', number: 1, action: 'opened', state: 'open' },
  },
  {
    file: 'gitea-issues-closed.json',
    title: '[kostekIV/test] kostekIV closed issue #3: Test issue 2',
    content: ['**State:** closed', '**Assignees:** kostekIV', '> Test body'],
    metadata: { sender: 'gitea', number: 3, action: 'closed', state: 'closed', assignees: ['kostekIV'] },
  },
  {
    file: 'gitea-issues-assigned.json',
    title: '[example/example] example assigned issue #1: example',
    content: ['**Action:** assigned (example)', '**Assignees:** example'],
    metadata: { sender: 'gitea', action: 'assigned', assignees: ['example'] },
  },
  {
    file: 'gitea-issues-edited.json',
    title: '[kostekIV/test] kostekIV edited issue #3: Test issue 2',
    content: ['**Action:** edited (title was "Test issue")'],
    metadata: { sender: 'gitea', action: 'edited', state: 'open' },
  },
  {
    file: 'gitlab-issue-opened.json',
    title: '[gitlab-org/hello-world] sytses opened issue #1: found a bug',
    content: ['**Action:** opened', '**State:** opened', '> everything is broken'],
    metadata: { sender: 'gitlab', event: 'issue', number: 1, action: 'open', state: 'opened' },
  },
  {
    file: 'gitlab-issue-closed.json',
    title: '[gitlab-org/hello-world] sytses closed issue #1: found a bug',
    content: ['**State:** closed', '**Labels:** critical'],
    metadata: { action: 'close', state: 'closed', labels: ['critical'] },
  },
  {
    file: 'gitlab-issue-labeled.json',
    title: '[gitlab-org/hello-world] sytses labeled issue #1: found a bug',
    content: ['**Action:** labeled (critical)', '**Labels:** critical'],
    metadata: { action: 'update', labels: ['critical'] },
  },
  {
    file: 'gitlab-issue-edited.json',
    title: '[gitlab-org/hello-world] sytses edited issue #1: found a bug',
    content: ['**Action:** edited (description)', '> website is broken'],
    metadata: { action: 'update', state: 'opened' },
  },
];

describe('forge-issues on the shared fixtures', () => {
  expectFixtureRenderings(forgeIssues, EXPECTED);
  it.each(EXPECTED)('$file renders the same without its event header', ({ file }) => {
    expect(render(file, false).title).toBe(render(file).title);
  });

  it.each(['gitea-issues-closed.json', 'gitea-issues-edited.json'])("%s never echoes Gitea's secret", (file) => {
    const secret = (fixture(file).payload as { secret: string }).secret;
    const r = render(file);
    expect(`${r.title}\n${r.content}\n${JSON.stringify(r.extra_metadata)}`).not.toContain(secret);
  });
});

describe('forge-issues beyond the fixtures', () => {
  it('renders a Bitbucket issue update with its status change', () => {
    const r = forgeIssues.render(
      {
        actor: { display_name: 'Bo' },
        repository: { type: 'repository', full_name: 'bo/app' },
        issue: { id: 7, title: 'Crash on start', state: 'resolved', kind: 'bug', priority: 'major', content: { raw: 'It crashes.' }, assignee: { display_name: 'Cy' }, links: { html: { href: 'https://bitbucket.org/bo/app/issues/7' } } },
        changes: { status: { old: 'open', new: 'resolved' } },
      },
      { 'x-event-key': 'issue:updated' },
    );
    expect(r.title).toBe('[bo/app] Bo changed the status to resolved on issue #7: Crash on start');
    expect(r.content).toContain('**State:** resolved');
    expect(r.content).toContain('**Labels:** bug, major');
    expect(r.content).toContain('**Assignees:** Cy');
    expect(r.extra_metadata).toMatchObject({ sender: 'bitbucket', number: 7, action: 'updated' });
  });

  it('renders a GitHub issue comment with the comment quoted', () => {
    const issue = fixture('github-issues-opened.json').payload as Record<string, unknown>;
    const r = forgeIssues.render({ ...issue, action: 'created', comment: { body: 'Me too', html_url: 'https://x/1#c' } }, { 'x-github-event': 'issue_comment' });
    expect(r.title).toBe('[Codertocat/Hello-World] Codertocat commented on issue #1: Spelling error in the README file');
    expect(r.content).toContain('**Comment:**\n> Me too');
  });

  it('renders a GitLab note on an issue as a comment', () => {
    const r = forgeIssues.render(
      {
        object_kind: 'note',
        user: { username: 'ann' },
        project: { path_with_namespace: 'g/p' },
        object_attributes: { noteable_type: 'Issue', note: 'Reproduced on main', url: 'https://gitlab.com/g/p/-/issues/4#note_1' },
        issue: { iid: 4, title: 'Slow start', state: 'opened', description: 'It takes ages' },
      },
      { 'x-gitlab-event': 'Note Hook' },
    );
    expect(r.title).toBe('[g/p] ann commented on issue #4: Slow start');
    expect(r.content).toContain('**Comment:**\n> Reproduced on main');
    expect(r.extra_metadata).toMatchObject({ sender: 'gitlab', event: 'note', action: 'note', number: 4 });
  });

  it('cuts a long body to its start', () => {
    const r = forgeIssues.render({ action: 'opened', issue: { number: 2, title: 't', body: 'ø'.repeat(100_000) } }, { 'x-github-event': 'issues' });
    expect(r.content.length).toBeLessThan(1500);
    expect(r.content).toContain('…');
  });

  it('renders a comment on a pull request (issue_comment on a PR) with the pull request it belongs to', () => {
    const r = forgeIssues.render({ action: 'created', issue: { number: 3, pull_request: {} }, repository: { full_name: 'o/r' }, sender: { login: 'x' } }, { 'x-github-event': 'issue_comment' });
    expect(r.unsupported_event).toBeUndefined();
    expect(r.title).toBe('[o/r] x commented on pull request #3');
  });
});
