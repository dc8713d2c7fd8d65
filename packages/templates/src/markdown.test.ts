import { describe, expect, it } from '@jest/globals';
import { chatMessage } from './chat-message.js';
import { forgeIssues } from './forge-issues.js';
import { forgePush } from './forge-push.js';
import { code, escapeMd, link, slackMarkdown, withReferences } from './markdown.js';
import { excerpt } from './text-format.js';
import { renderFixture } from './__tests__/fixtures.js';

describe('templates write Markdown', () => {
  it('a push lists its commits as a Markdown list with linked code-span shas, under bold labels', () => {
    const r = renderFixture(forgePush, 'github-push-many_commits.json');
    const lines = r.content.split('\n');
    expect(lines).toContain('- **Branch:** `changes`');
    const commits = lines.filter((l) => l.startsWith('* '));
    expect(commits).toHaveLength(20);
    for (const line of commits) expect(line).toMatch(/^\* \[`[0-9a-f]{7}`\]\(<https:\/\/github\.com\/baxterthehacker\/public-repo\/commit\/[0-9a-f]{40}>\) /);
    // "and 30 more" is a paragraph of its own, linked to the comparison, not part of the last item.
    expect(r.content).toMatch(/\n\n\[… and 30 more commits\]\(<https:\/\/github\.com\/baxterthehacker\/public-repo\/compare\/[^>]+>\)$/);
  });

  it("GitHub and GitLab references in a commit message become links to the repository's issues and merge requests", () => {
    const gh = withReferences('Fix #12, thanks @ola-n (see a@b.no and x#3)', { repoUrl: 'https://github.com/o/r' });
    expect(gh.text).toBe('Fix [#12](<https://github.com/o/r/issues/12>), thanks [@ola-n](<https://github.com/ola-n>) (see a@b.no and x#3)');
    const gl = withReferences('Merge !7 for #8', { repoUrl: 'https://gitlab.com/g/p', gitlab: true });
    expect(gl.text).toBe('Merge [!7](<https://gitlab.com/g/p/-/merge_requests/7>) for [#8](<https://gitlab.com/g/p/-/issues/8>)');
    expect(withReferences('Fix #12 *now*', undefined).text).toBe('Fix #12 \\*now\\*');
  });

  it('text from a payload is escaped: it cannot add links, emphasis or HTML', () => {
    expect(escapeMd('a *b* [c](javascript:x) <img src=x> &amp; _d_ `e`')).toBe('a \\*b\\* \\[c\\](javascript:x) \\<img src=x\\> \\&amp; \\_d\\_ \\`e\\`');
    expect(link('x', 'javascript:alert(1)').text).toBe('x');
    expect(link('x', 'https://a.no/a_(c)').text).toBe('[x](<https://a.no/a_(c)>)');
    expect(code('a`b').text).toBe('``a`b``');
    expect(code('x'.repeat(1000)).text.length).toBeLessThan(310);
  });

  it("Slack markup becomes Markdown: mentions, channels, links, bold, strike and :emoji:", () => {
    expect(slackMarkdown('<@U1|ola> in <#C9|general>: see <https://a.no/x|the page> or <https://b.no> *now* ~old~ :sunny: :no_such_emoji: &lt;3 &amp; <!here>')).toBe(
      '**@ola** in **#general**: see [the page](<https://a.no/x>) or <https://b.no> **now** ~~old~~ ☀️ :no_such_emoji: <3 & **@here**',
    );
    expect(slackMarkdown('<javascript:alert(1)|click>')).toBe('click');
  });

  it('a Slack message on a page keeps its mentions, link and emoji as Markdown', () => {
    const payload = {
      type: 'event_callback',
      team_id: 'T1',
      event: { type: 'message', channel: 'C1', user: 'U1', ts: '1.2', text: 'Hei <@U2|kari>, se <https://fjord.no|saken> :sunny:' },
    };
    const r = chatMessage.render(payload, {});
    expect(r.content).toContain('Hei **@kari**, se [saken](<https://fjord.no>) ☀️');
    expect(r.title).toContain('se saken (https://fjord.no) ☀️');
  });

  it('a cut text ends with "…", at a word, also when its lines end in CRLF', () => {
    const body = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit.\r\n'.repeat(20);
    const cut = excerpt(body, 500);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(500);
    // At a word: the original goes on with a space or line break right where the cut is.
    const whole = body.replace(/\r\n/g, '\n');
    const kept = cut.slice(0, -1);
    expect(whole.startsWith(kept)).toBe(true);
    expect(whole.charAt(kept.length)).toMatch(/\s/);
    expect(excerpt('short text', 500)).toBe('short text');
  });

  it('an issue body longer than the excerpt is quoted and ends with "…"', () => {
    const payload = {
      action: 'opened',
      issue: { number: 3, title: 'Lang', body: `${'Lorem ipsum dolor sit amet magna aliqua. '.repeat(30)}\r\nSlutt`, state: 'open', html_url: 'https://github.com/o/r/issues/3', user: { login: 'ola' } },
      repository: { full_name: 'o/r', html_url: 'https://github.com/o/r' },
      sender: { login: 'ola' },
    };
    const r = forgeIssues.render(payload, { 'x-github-event': 'issues' });
    const quoted = r.content.split('\n').filter((l) => l.startsWith('> '));
    expect(quoted.at(-1)!.endsWith('…')).toBe(true);
  });
});
