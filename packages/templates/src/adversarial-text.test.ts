import { describe, expect, it } from '@jest/globals';
import { previewTemplate } from './preview.js';
import { TEMPLATES } from './registry.js';
import { nameOfRaw } from './forge-push.js';
import { allFixtures } from './__tests__/fixtures.js';
import { githubExamples } from './__tests__/github-examples.js';
import type { Headers } from './types.js';

const MB = 1024 * 1024;

/**
 * One megabyte of each text that makes a backtracking regex or a per-character rewrite
 * expensive: runs of the characters the templates' patterns look for, and of whitespace.
 */
const ADVERSARIAL: Record<string, string> = {
  'open angles': '<'.repeat(MB),
  'angle and spaces': `a${' <'.repeat(MB / 2)}`,
  'unclosed markup': `<${'a'.repeat(MB - 1)}`,
  'teams mentions': '<at>'.repeat(MB / 4),
  'html breaks': '<br '.repeat(MB / 4),
  spaces: ' '.repeat(MB),
  'spaces then hook': `${' '.repeat(MB - 5)}xhook`,
  'line breaks': '\r\n\r'.repeat(MB / 3),
  digits: `${'1'.repeat(MB - 1)}x`,
  'digits and dots': '1.'.repeat(MB / 2),
  zeros: '0'.repeat(MB),
  dashes: ' -'.repeat(MB / 2),
  entities: '&lt'.repeat(MB / 3),
  'slack links': '<http://x|'.repeat(MB / 10),
  'lone surrogates': '\uD800'.repeat(MB),
  'ref prefix': `refs/heads/${'/'.repeat(MB)}`,
};

const EVENT_HEADER_NAMES = [
  'x-github-event', 'x-gitlab-event', 'x-gitea-event', 'x-gitea-event-type', 'x-gogs-event', 'x-forgejo-event',
  'x-forgejo-event-type', 'x-event-key', 'x-buildkite-event', 'circleci-event-type', 'x-slack-retry-num',
];

/** Every string in a real payload replaced by the same adversarial text (one shared string, so little memory). */
function poison(value: unknown, text: string): unknown {
  if (typeof value === 'string') return text;
  if (Array.isArray(value)) return value.map((v) => poison(v, text));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, poison(v, text)]));
  }
  return value;
}

/** The fastest of three runs: a quadratic pattern is slow every time, a busy machine only sometimes. */
function fastestMs(run: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/** Bodies of the readers the kept fixtures do not reach (issue 13), in their senders' shapes. */
const SHAPED: Array<{ file: string; templateId: string; headers: Headers; payload: unknown }> = [
  { file: 'appveyor', templateId: 'ci-build', headers: {}, payload: { eventName: 'build_success', eventData: { status: 'Success', projectName: 'p', branch: 'b', buildVersion: '1', commitMessage: 'm' } } },
  { file: 'snapci', templateId: 'ci-build', headers: {}, payload: { project_name: 'o/r (b)', stage_name: 's', counter: 1, build_result: 'Passed' } },
  { file: 'drone 0.4', templateId: 'ci-build', headers: {}, payload: { icon: 'x', message: 'Drone [o/r](u) (b) [success](u) (s)' } },
  { file: 'buildbot', templateId: 'ci-build', headers: {}, payload: { event: 'finished', buildid: 1, buildername: 'b', project: 'p', results: 0 } },
  { file: 'azure push', templateId: 'forge-push', headers: {}, payload: { eventType: 'git.push', publisherId: 'tfs', resource: { refUpdates: [{ name: 'refs/heads/m', oldObjectId: 'a', newObjectId: 'b' }], commits: [{ commitId: 'c', comment: 'm', author: { name: 'n' } }], pushedBy: { displayName: 'd' } } } },
  { file: 'gitlab note', templateId: 'forge-pull-request', headers: { 'x-gitlab-event': 'Note Hook' }, payload: { object_kind: 'note', user: { username: 'u' }, object_attributes: { note: 'n', noteable_type: 'MergeRequest' }, merge_request: { iid: 1, title: 't' } } },
  { file: 'slack file_share', templateId: 'chat-message', headers: {}, payload: { type: 'event_callback', event: { type: 'message', subtype: 'file_share', user: 'U', text: '', files: [{ title: 't', name: 'n' }] } } },
  ...['ping', 'release', 'pull_request_review', 'pull_request_review_comment', 'pull_request_review_thread', 'issue_comment', 'status'].map((event) => ({
    file: `octokit ${event}`,
    templateId: event === 'status' ? 'ci-build' : event === 'ping' || event === 'release' ? 'forge-push' : 'forge-pull-request',
    headers: { 'x-github-event': event },
    payload: githubExamples(event)[0],
  })),
];

// One payload per sender and event shape is enough: the poison reaches every field it reads.
const SAMPLES = [...allFixtures(), ...SHAPED];

describe.each(TEMPLATES.map((t) => t.id))('%s renders a 1 MB adversarial field in under 100 ms', (templateId) => {
  const template = TEMPLATES.find((t) => t.id === templateId)!;

  it.each(Object.keys(ADVERSARIAL))('%s in every string field of every real payload, with and without its event header', (kind) => {
    const text = ADVERSARIAL[kind]!;
    for (const f of SAMPLES) {
      const payload = poison(f.payload, text);
      for (const headers of [f.headers, {}]) {
        const ms = fastestMs(() => template.render(payload, headers));
        expect({ file: f.file, ms: ms < 100 ? 'under 100' : ms }).toEqual({ file: f.file, ms: 'under 100' });
      }
    }
  });

  it.each(Object.keys(ADVERSARIAL))('%s as every event header and through the preview path', (kind) => {
    const text = ADVERSARIAL[kind]!;
    const headers: Headers = Object.fromEntries(EVENT_HEADER_NAMES.map((n) => [n, text]));
    const typed: Headers = Object.fromEntries(EVENT_HEADER_NAMES.map((n) => [n.toUpperCase(), text]));
    for (const f of SAMPLES.filter((s) => s.templateId === templateId)) {
      const payload = poison(f.payload, text);
      expect(fastestMs(() => template.render(f.payload, headers))).toBeLessThan(100);
      expect(fastestMs(() => previewTemplate(templateId, payload, typed))).toBeLessThan(100);
      expect(fastestMs(() => previewTemplate(templateId, payload, f.headers))).toBeLessThan(100);
    }
  });

  it('reads at most 64 KB of a field: a 1 MB commit message, issue body or chat text is cut', () => {
    for (const f of SAMPLES) {
      const r = template.render(poison(f.payload, 'word '.repeat(MB / 5)), f.headers);
      expect(r.content.length).toBeLessThan(70 * 1024);
    }
  });
});

describe("a commit author's raw \"Name <email>\"", () => {
  it('keeps the name, as before, without a quadratic regex', () => {
    expect(nameOfRaw('Jane Doe <jane@example.com>')).toBe('Jane Doe');
    expect(nameOfRaw('Jane Doe  <jane@example.com>  ')).toBe('Jane Doe');
    expect(nameOfRaw('Jane Doe')).toBe('Jane Doe');
    expect(nameOfRaw('a <b> c')).toBe('a <b> c');
    const raw = `x${'<'.repeat(MB)}`;
    expect(fastestMs(() => nameOfRaw(raw))).toBeLessThan(100);
  });
});
