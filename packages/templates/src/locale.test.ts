import { describe, expect, it } from '@jest/globals';
import { ciBuild } from './ci-build.js';
import { chatMessage } from './chat-message.js';
import { forgeIssues } from './forge-issues.js';
import { forgePullRequest } from './forge-pull-request.js';
import { forgePush } from './forge-push.js';
import { t } from './locale.js';
import { fixture } from './__tests__/fixtures.js';

const nb = (render: (p: unknown, h: Record<string, string>, l: 'nb') => { title: string; content: string }, file: string) => {
  const f = fixture(file);
  return render(f.payload, f.headers as Record<string, string>, 'nb');
};

describe('templates write in the locale they are given; the sender keeps their own words', () => {
  it('a push: "ola dyttet 3 commits til main", Norwegian labels, the commit messages as sent', () => {
    const r = nb((p, h, l) => forgePush.render(p, h, l), 'gitea-push-several_commits.json');
    expect(r.title).toBe('[Test-CI/multi-line-secrets] test-user dyttet 3 commits til main');
    expect(r.content).toContain('- **Gren:** `main`');
    expect(r.content).toContain('- **Endring:** gren dytt');
    expect(r.content).toContain(') add some text (6543)');
  });

  it('a CI failure: "CI #128 feilet på main"', () => {
    const payload = { build: { phase: 'COMPLETED', status: 'FAILURE', number: 128, scm: { branch: 'main' } }, name: 'CI' };
    const r = ciBuild.render(payload, {}, 'nb');
    expect(r.title).toMatch(/CI #128 feilet \(FAILURE\) på main$/);
    expect(r.content).toContain('- **Status:** feilet (FAILURE)');
  });

  it('an issue and a pull request: the verb and noun in Norwegian, the title as written', () => {
    const issue = nb((p, h, l) => forgeIssues.render(p, h, l), 'github-issues-opened.json');
    expect(issue.title).toBe('[Codertocat/Hello-World] Codertocat åpnet sak #1: Spelling error in the README file');
    const merged = nb((p, h, l) => forgePullRequest.render(p, h, l), 'github-pull_request-closed_merged.json');
    expect(merged.content).toContain('- **Flettestatus:** ');
  });

  it('a chat message keeps its text; only the labels are Norwegian', () => {
    const r = nb((p, h, l) => chatMessage.render(p, h, l), 'slack-event_callback-message_plain.json');
    expect(r.content).toContain('- **Kanal:** ');
  });

  it('the catalogue falls back to the English phrase and never reads a payload word as its own key', () => {
    expect(t('nb', 'no such phrase')).toBe('no such phrase');
    expect(t('nb', 'constructor')).toBe('constructor');
    expect(t('nb', '{who} pushed {commits} to {ref}', { who: '{ref}', commits: '2 commits', ref: 'main' })).toBe('{ref} dyttet 2 commits til main');
    expect(t('en', 'Repository')).toBe('Repository');
  });
});
