import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { TEMPLATES, renderPayload } from './registry.js';
import type { Headers, TemplateResult } from './types.js';
import { allFixtures } from './__tests__/fixtures.js';

const EVENT_HEADERS: Record<string, string[]> = {
  'x-github-event': ['push', 'issues', 'pull_request', 'workflow_run', 'check_run', 'star', 'ping', ''],
  'x-gitlab-event': ['Push Hook', 'Issue Hook', 'Merge Request Hook', 'Pipeline Hook', 'Job Hook', 'Note Hook'],
  'x-gitea-event': ['push', 'create', 'delete', 'issues', 'pull_request', 'release'],
  'x-gitea-event-type': ['issue_assign', 'pull_request_sync', 'issue_comment'],
  'x-forgejo-event': ['push', 'pull_request'],
  'x-event-key': ['repo:push', 'pullrequest:fulfilled', 'issue:created', 'repo:commit_status_updated', 'repo:fork'],
  'x-buildkite-event': ['build.finished', 'ping'],
  'circleci-event-type': ['workflow-completed'],
  'x-slack-retry-num': ['1', 'x'],
};

const headersArb: fc.Arbitrary<Headers> = fc
  .subarray(Object.keys(EVENT_HEADERS))
  .chain((names) =>
    fc.tuple(...names.map((n) => fc.oneof(fc.constantFrom(...EVENT_HEADERS[n]!), fc.string()))).map((values) =>
      Object.fromEntries(names.map((n, i) => [n, values[i]!])),
    ),
  );

const JUNK: unknown[] = [
  null, 0, -1, 1.5, 1e308, Number.NaN, Number.POSITIVE_INFINITY, '', '   ', '\n', 'x'.repeat(5000), '\u0000\u202e', '😀'.repeat(300),
  [], {}, [null], { a: { b: { c: [] } } }, true, false, '0000000000000000000000000000000000000000', 'refs/heads/', 'refs/tags/',
  [[[[[[[[[[]]]]]]]]]], JSON.parse('{"__proto__": {"polluted": 1}, "constructor": "x"}'),
];

/** Replaces values of a real payload with junk of other types, guided by fast-check's numbers. */
function mutate(value: unknown, choices: number[], cursor = { i: 0 }, depth = 0): unknown {
  const next = () => choices[cursor.i++ % choices.length]!;
  if (depth > 0 && next() % 7 === 0) return JUNK[next() % JUNK.length];
  if (Array.isArray(value)) return value.slice(0, 30).map((v) => mutate(v, choices, cursor, depth + 1));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mutate(v, choices, cursor, depth + 1)]));
  }
  return value;
}

// eslint-disable-next-line no-control-regex -- NUL is exactly what must not be stored
const UNSTORABLE = /\u0000|\\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function assertWellFormed(r: TemplateResult, templateId: string): void {
  expect(typeof r.title).toBe('string');
  expect(r.title).not.toMatch(/[\r\n]/);
  // PostgreSQL text and jsonb refuse NUL and lone surrogates.
  expect(`${r.title}${r.content}${JSON.stringify(r.extra_metadata)}`).not.toMatch(UNSTORABLE);
  expect(r.title.length).toBeLessThanOrEqual(200);
  expect(r.title.trim()).not.toBe('');
  expect(typeof r.content).toBe('string');
  expect(r.extra_metadata).toMatchObject({ template: templateId, template_version: expect.any(Number) });
  for (const reserved of ['source', 'payload', 'webhook_id']) expect(r.extra_metadata).not.toHaveProperty(reserved);
  expect(() => JSON.stringify(r.extra_metadata)).not.toThrow();
  expect(Object.getPrototypeOf({})).not.toHaveProperty('polluted');
}

describe.each(TEMPLATES.map((t) => t.id))('%s never throws', (templateId) => {
  const template = TEMPLATES.find((t) => t.id === templateId)!;

  it('on arbitrary JSON with arbitrary event headers', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6, stringUnit: 'binary' }), headersArb, (payload, headers) => {
        assertWellFormed(template.render(payload, headers), templateId);
      }),
      { numRuns: 500 },
    );
  });

  it('on arbitrary values that are not JSON at all', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 4, withNullPrototype: true, withBigInt: true, withDate: true, withMap: true }), headersArb, (payload, headers) => {
        assertWellFormed(template.render(payload, headers), templateId);
      }),
      { numRuns: 300 },
    );
  });

  it('on every shared fixture with fields replaced by wrong types', () => {
    const fixtures = allFixtures();
    fc.assert(
      fc.property(fc.nat(fixtures.length - 1), fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), fc.boolean(), (index, choices, keepHeaders) => {
        const f = fixtures[index]!;
        assertWellFormed(template.render(mutate(f.payload, choices), keepHeaders ? f.headers : {}), templateId);
      }),
      { numRuns: 400 },
    );
  });

  it('on deeply nested junk, empty strings and nulls in every common field', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 5000; i++) deep = i % 2 ? [deep] : { repository: deep, build: deep, event: deep };
    const nulls = Object.fromEntries(
      ['ref', 'commits', 'repository', 'sender', 'issue', 'pull_request', 'object_attributes', 'event', 'build', 'pipeline', 'project', 'text', 'type', 'payload'].map((k) => [k, null]),
    );
    const empties = Object.fromEntries(Object.keys(nulls).map((k) => [k, '']));
    for (const payload of [deep, nulls, empties, [], '', 0, null, undefined, { commits: new Array(100_000).fill(null) }]) {
      assertWellFormed(template.render(payload, {}), templateId);
    }
  });
});

describe('secrets a payload carries', () => {
  it('are never echoed into title or content, nor into extra metadata', () => {
    const secret = 'S3CRET-d0-not-echo';
    for (const f of allFixtures()) {
      const payload = { ...(f.payload as object), secret, token: secret };
      const { result } = renderPayload(f.templateId, payload, f.headers);
      expect(`${result.title}\n${result.content}\n${JSON.stringify(result.extra_metadata)}`).not.toContain(secret);
    }
  });
});

describe('renderPayload', () => {
  it('falls back to generic extraction and reports the error if a template ever throws', () => {
    const hostile = {
      get pull_request() {
        throw new Error('boom');
      },
    };
    const r = renderPayload('forge-pull-request', hostile, { 'x-github-event': 'pull_request' });
    expect(r.templateError).toBe('boom');
    expect(r.result).toEqual({ title: '', content: '', extra_metadata: {} });
  });

  it('passes the unsupported event through for intake to log', () => {
    const r = renderPayload('forge-push', { starred_at: null }, { 'x-github-event': 'star' });
    expect(r.result.unsupported_event).toBe('star');
    expect(r.templateError).toBeUndefined();
  });
});
