import { describe, expect, it } from '@jest/globals';
import { parseScript, RetryableActionError, runScript, type ActionName, type EventVariables, type JsonObject, type RunDeps, type StepRecord } from './index.js';

// when, filter, retry, for_each, re-runs from a step and secrets in the log (issue 27).
const ID = '0190a0a0-0000-7000-8000-000000000001';
const event: EventVariables = {
  type: 'node.created',
  node: { id: ID, title: 'CI failed', node_kind: 'content', metadata: { status: 'failed', commits: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] } },
};

async function run(text: string, answer: (action: ActionName, input: JsonObject, call: number) => JsonObject | Error, extra: Partial<RunDeps> = {}) {
  const log: StepRecord[] = [];
  const calls: Array<{ action: ActionName; input: JsonObject }> = [];
  const waits: number[] = [];
  const script = parseScript(text, { event: 'node.created' });
  const once = (more: Partial<RunDeps>) =>
    runScript(script, event, {
      port: {
        async run(action, input) {
          calls.push({ action, input });
          const result = answer(action, input, calls.length);
          if (result instanceof Error) throw result;
          return result;
        },
      },
      record: async (r) => void log.push(r),
      signal: new AbortController().signal,
      now: () => 0,
      ...extra,
      ...more,
    });
  // A run that waits for a retry is queued again by its job; here it goes on at once, as its job would later.
  let outcome = await once({});
  while (outcome.kind === 'waiting') {
    waits.push(outcome.wait_ms);
    outcome = await once({ fromStep: outcome.at.step, outputs: outcome.outputs, retryAt: outcome.at });
  }
  return { outcome, log, calls, waits };
}

const mark = (key: string, extra = '') => `  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: ${key}, value: 1 }\n${extra}`;

describe('when and filter', () => {
  it('a step whose when does not hold is skipped, logged with the reason, and the run goes on', async () => {
    const { outcome, log, calls } = await run(`steps:\n${mark('a', '    when: { value: "{event.node.metadata.status}", equals: success }\n')}${mark('b')}`, () => ({}));
    expect(outcome.kind).toBe('completed');
    expect(calls.map((c) => c.input.key)).toEqual(['b']);
    expect(log[0]).toEqual({ step: 1, action: 'set_metadata', fallback: null, status: 'skipped', error: 'Hoppet over: when: {event.node.metadata.status} equals "success" holdt ikke', duration_ms: 0 });
  });

  it('a filter that does not hold ends the run early without error; one that holds lets it through', async () => {
    const stopped = await run(`steps:\n  - filter: { value: "{event.node.metadata.status}", equals: success }\n${mark('a')}`, () => ({}));
    expect(stopped.outcome).toMatchObject({ kind: 'filtered', step: 1 });
    expect(stopped.calls).toEqual([]);
    expect(stopped.log).toEqual([expect.objectContaining({ step: 1, status: 'skipped', error: expect.stringMatching(/^Filteret slapp ikke hendelsen gjennom: .*; 1 steg hoppet over$/) })]);
    const through = await run(`steps:\n  - filter: { value: "{event.node.title}", matches: "ci fail*" }\n${mark('a')}`, () => ({}));
    expect(through.outcome.kind).toBe('completed');
    expect(through.calls).toHaveLength(1);
  });
});

describe('retry of http_post', () => {
  const post = `steps:\n  - action: http_post\n    with: { url: "https://hooks.test/ci" }\n    retry: { attempts: 3, backoff: 2 }\n`;

  it('retries a 5xx or a timeout with a doubling wait, and succeeds', async () => {
    const { outcome, calls, waits, log } = await run(post, (_a, _i, n) => (n < 3 ? new RetryableActionError('http_post: hooks.test svarte 503') : { status: 200 }));
    expect(outcome.kind).toBe('completed');
    expect(calls).toHaveLength(3);
    expect(waits).toEqual([2000, 4000]);
    expect(log.map((r) => r.status)).toEqual(['ok']);
  });

  it('does not retry a 4xx; gives up after its attempts', async () => {
    const fourxx = await run(post, () => new Error('http_post: hooks.test svarte 404'));
    expect(fourxx.calls).toHaveLength(1);
    const always = await run(post, () => new Error('wrapped', { cause: new RetryableActionError('timeout') }));
    expect(always.calls).toHaveLength(3);
    expect(always.log[0]).toMatchObject({ status: 'failed', error: 'wrapped (3 forsøk)' });
  });

  it('a wait ends the run as waiting, to be queued again (no sleep in the job), with the attempt it makes next (issue 35)', async () => {
    const script = parseScript(post, { event: 'node.created' });
    const outcome = await runScript(script, event, {
      port: { run: async () => Promise.reject(new RetryableActionError('http_post: hooks.test svarte 503')) },
      record: async () => {},
      signal: new AbortController().signal,
    });
    expect(outcome).toMatchObject({ kind: 'waiting', at: { step: 1, attempt: 2 }, wait_ms: 2000 });
  });

  it('a for_each that waits goes on at the element that failed, with the elements before it done once', async () => {
    const text = `steps:\n  - action: http_post\n    for_each: "{event.node.metadata.commits}"\n    with: { url: "https://hooks.test/{item.id}" }\n    retry: { attempts: 2, backoff: 1 }\n`;
    const { outcome, calls, waits, log } = await run(text, (_a, _i, n) => (n === 2 ? new RetryableActionError('503') : { n }));
    expect(outcome.kind).toBe('completed');
    expect(calls.map((c) => c.input.url)).toEqual(['https://hooks.test/a', 'https://hooks.test/b', 'https://hooks.test/b', 'https://hooks.test/c']);
    expect(waits).toEqual([1000]);
    expect(log[0]!.output).toEqual({ count: 3, items: [{ n: 1 }, { n: 3 }, { n: 4 }] });
  });

  it('waits at most 300 s in all: 60 s × 5 attempts (900 s) is refused before saving', () => {
    expect(() => parseScript(`steps:\n  - action: http_post\n    with: { url: "https://hooks.test/ci" }\n    retry: { attempts: 5, backoff: 60 }\n`)).toThrow('ventetiden blir i alt 900 s; høyst 300 s');
    expect(() => parseScript(`steps:\n  - action: http_post\n    with: { url: "https://hooks.test/ci" }\n    retry: { attempts: 5, backoff: 20 }\n`)).not.toThrow();
  });

  it('is refused on other actions before saving', () => {
    expect(() => parseScript(`steps:\n${mark('a', '    retry: { attempts: 2, backoff: 1 }\n')}`)).toThrow('steg 1: retry gjelder bare http_post');
  });
});

describe('for_each', () => {
  it('runs the action once per element of an array in the event, as {item} and {index}', async () => {
    const text = `steps:\n  - action: set_metadata\n    for_each: "{event.node.metadata.commits}"\n    with: { node_id: "{event.node.id}", key: "commit_{index}", value: "{item.id}" }\n`;
    const { outcome, calls, log } = await run(text, (_a, input) => ({ key: input.key as string }));
    expect(outcome.kind).toBe('completed');
    expect(calls.map((c) => [c.input.key, c.input.value])).toEqual([['commit_0', 'a'], ['commit_1', 'b'], ['commit_2', 'c']]);
    expect(log[0]!.output).toEqual({ count: 3, items: [{ key: 'commit_0' }, { key: 'commit_1' }, { key: 'commit_2' }] });
  });

  it('{item} outside a for_each step is refused before saving', () => {
    expect(() => parseScript(`steps:\n  - action: set_metadata\n    with: { node_id: "{item.id}", key: a, value: 1 }\n`)).toThrow(/finnes bare i et steg med for_each/);
  });
});

describe('re-runs and secrets', () => {
  it('a re-run starts at the failed step with the outputs of the steps before it', async () => {
    const text = `steps:\n  - action: create_node\n    with: { node_kind: content, title: x }\n  - action: set_metadata\n    with: { node_id: "{steps.1.output.id}", key: a, value: 1 }\n`;
    const { calls, outcome } = await run(text, () => ({}), { fromStep: 2, outputs: new Map([[1, { id: ID }]]) });
    expect(calls).toEqual([{ action: 'set_metadata', input: { node_id: ID, key: 'a', value: 1 } }]);
    expect(outcome.outputs.get(1)).toEqual({ id: ID });
  });

  it('{secrets.NAME} fills a header and its value never reaches the log', async () => {
    const text = `steps:\n  - action: http_post\n    with: { url: "https://hooks.test/ci", headers: { Authorization: "Bearer {secrets.HOOK_TOKEN}" } }\n`;
    const { calls, log } = await run(text, (_a, input) => new Error(`refused ${JSON.stringify(input.headers)}`), { secrets: new Map([['HOOK_TOKEN', 's3cr3t"x']]) });
    expect(calls[0]!.input.headers).toEqual({ Authorization: 'Bearer s3cr3t"x' });
    expect(JSON.stringify(log)).not.toContain('s3cr3t');
    expect(log[0]!.error).toContain('[hemmelig]');
  });

  it('{secrets.NAME} is refused outside http_post headers', () => {
    expect(() => parseScript(`steps:\n  - action: http_post\n    with: { url: "https://hooks.test/{secrets.X}" }\n`)).toThrow(/står bare i headers til http_post/);
  });
});
