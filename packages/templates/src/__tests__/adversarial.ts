import { describe, expect, it } from '@jest/globals';
import { previewTemplate } from '../preview.js';
import { TEMPLATES } from '../registry.js';
import { allFixtures } from './fixtures.js';
import { githubExamples } from './github-examples.js';
import { cpuGrowth } from './growth.js';
import type { Headers } from '../types.js';

const MB = 1024 * 1024;

/**
 * The texts that make a backtracking regex or a per-character rewrite expensive, `n` characters
 * long: runs of the characters the templates' patterns look for, and of whitespace.
 */
const ADVERSARIAL: Record<string, (n: number) => string> = {
  'open angles': (n) => '<'.repeat(n),
  'angle and spaces': (n) => `a${' <'.repeat(n / 2)}`,
  'unclosed markup': (n) => `<${'a'.repeat(n - 1)}`,
  'teams mentions': (n) => '<at>'.repeat(n / 4),
  'html breaks': (n) => '<br '.repeat(n / 4),
  spaces: (n) => ' '.repeat(n),
  'spaces then hook': (n) => `${' '.repeat(n - 5)}xhook`,
  'line breaks': (n) => '\r\n\r'.repeat(Math.floor(n / 3)),
  digits: (n) => `${'1'.repeat(n - 1)}x`,
  'digits and dots': (n) => '1.'.repeat(n / 2),
  zeros: (n) => '0'.repeat(n),
  dashes: (n) => ' -'.repeat(n / 2),
  entities: (n) => '&lt'.repeat(Math.floor(n / 3)),
  'slack links': (n) => '<http://x|'.repeat(Math.floor(n / 10)),
  'lone surrogates': (n) => '\uD800'.repeat(n),
  'ref prefix': (n) => `refs/heads/${'/'.repeat(n)}`,
};

/**
 * 8 KB and four times that, both under the 64 KB a template reads of a field (`TEXT_CAP`), so the
 * whole text reaches every pattern: a linear path costs at most 4 times as much on the larger, a
 * quadratic one about 16 times. The bound (10) sits between, with room for a busy machine's noise
 * (8.3 was seen for a linear path with a second suite beside this one).
 */
const SIZE = 8 * 1024;
const GROWTH = 4;
export const LINEAR_GROWTH = 10;

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

export function growth(work: (size: number) => () => unknown): number {
  return cpuGrowth(work, SIZE, GROWTH);
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

/**
 * The adversarial-text tests of one template, one test file per template
 * (adversarial-text-<id>.test.ts) so jest runs them side by side: together they are the suite's
 * longest file otherwise.
 */
export function describeAdversarialText(templateId: string): void {
  describe(`${templateId} renders an adversarial field in time linear in its length`, () => {
    const template = TEMPLATES.find((t) => t.id === templateId)!;

    it.each(Object.keys(ADVERSARIAL))('%s in every string field of every real payload, with and without its event header', (kind) => {
      const work = (size: number) => {
        const text = ADVERSARIAL[kind]!(size);
        const cases = SAMPLES.flatMap((f) => [f.headers, {}].map((headers) => ({ payload: poison(f.payload, text), headers })));
        return () => cases.forEach((c) => template.render(c.payload, c.headers));
      };
      expect(growth(work)).toBeLessThan(LINEAR_GROWTH);
    });

    it.each(Object.keys(ADVERSARIAL))('%s as every event header and through the preview path', (kind) => {
      const work = (size: number) => {
        const text = ADVERSARIAL[kind]!(size);
        const headers: Headers = Object.fromEntries(EVENT_HEADER_NAMES.map((n) => [n, text]));
        const typed: Headers = Object.fromEntries(EVENT_HEADER_NAMES.map((n) => [n.toUpperCase(), text]));
        const cases = SAMPLES.filter((s) => s.templateId === templateId).map((f) => ({ f, payload: poison(f.payload, text) }));
        return () =>
          cases.forEach(({ f, payload }) => {
            template.render(f.payload, headers);
            previewTemplate(templateId, payload, typed);
            previewTemplate(templateId, payload, f.headers);
          });
      };
      expect(growth(work)).toBeLessThan(LINEAR_GROWTH);
    });
    it('reads at most 64 KB of a field: a 1 MB commit message, issue body or chat text is cut', () => {
      for (const f of SAMPLES) {
        const r = template.render(poison(f.payload, 'word '.repeat(MB / 5)), f.headers);
        expect(r.content.length).toBeLessThan(70 * 1024);
      }
    });
  });
}
