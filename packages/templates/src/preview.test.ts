import { describe, expect, it } from '@jest/globals';
import { previewTemplate } from './preview.js';
import { fixture } from './__tests__/fixtures.js';

describe('previewTemplate', () => {
  it('renders a sample payload as intake would, header names in any case', () => {
    const p = previewTemplate('forge-push', fixture('github-push-one_commit.json').payload, { 'X-GitHub-Event': 'push' });
    expect(p).toMatchObject({
      template_id: 'forge-push',
      known_template: true,
      // Norwegian unless told otherwise, as intake writes for a webhook without a locale.
      title: '[Codertocat/Hello-World] Codertocat dyttet 1 commit til master',
      extra_metadata: { sender: 'github', event: 'push', locale: 'nb' },
    });
    expect(p.content).toContain('- **Gren:** `master`');
    expect(p.content).toContain('* [`199eddf`](<https://github.com/Codertocat/Hello-World/compare/199eddf46df50de8d02e99bf1c5fdb4101338224>) Update README (Codertocat)');
  });

  it('writes English when asked: the headline and labels, never the commit message', () => {
    const p = previewTemplate('forge-push', fixture('github-push-one_commit.json').payload, { 'X-GitHub-Event': 'push' }, 'en');
    expect(p.title).toBe('[Codertocat/Hello-World] Codertocat pushed 1 commit to master');
    expect(p.content).toContain('- **Branch:** `master`');
    expect(p.content).toContain(') Update README (Codertocat)');
  });

  it("shows Slack's reply and an unsupported event", () => {
    expect(previewTemplate('chat-message', { type: 'url_verification', challenge: 'abc', token: 't' }).reply).toEqual({ challenge: 'abc' });
    expect(previewTemplate('forge-issues', { starred_at: null }, { 'x-github-event': 'star' }).unsupported_event).toBe('star');
  });

  it('falls back to generic extraction for an unknown template, as intake does', () => {
    expect(previewTemplate('no-such', { title: 'T', body: 'B' })).toEqual({
      template_id: 'no-such',
      known_template: false,
      title: 'T',
      content: 'B',
      extra_metadata: {},
    });
  });
});
