import { describe, expect, it } from '@jest/globals';
import { ActionSkipped, parseScript, resolveUrl, resolveVariables, runScript, type ActionName, type EventVariables, type JsonObject, type StepRecord } from './index.js';

const ID = '0190a0a0-0000-7000-8000-000000000001';
const event: EventVariables = {
  type: 'node.created',
  node: { id: ID, title: 'Hei', node_kind: 'content', metadata: { count: 3, tags: ['a'] } },
};

/** An action port that answers from a table: an Error fails the action. */
function port(answers: Partial<Record<ActionName, (input: JsonObject) => JsonObject | Error>>) {
  const calls: Array<{ action: ActionName; input: JsonObject }> = [];
  return {
    calls,
    port: {
      async run(action: ActionName, input: JsonObject) {
        calls.push({ action, input });
        const answer = answers[action]?.(input) ?? {};
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
  };
}

async function run(text: string, answers: Parameters<typeof port>[0]) {
  const log: StepRecord[] = [];
  const p = port(answers);
  const outcome = await runScript(parseScript(text), event, { port: p.port, record: async (r) => void log.push(r), signal: new AbortController().signal, now: () => 0 });
  return { outcome, log, calls: p.calls };
}

describe('variables', () => {
  const context = { event, outputs: new Map([[1, { id: 'x', n: 2 }]]) };

  it('a whole-string variable keeps its type; inside text it is written out', () => {
    expect(resolveVariables({ a: '{event.node.metadata.count}', b: 'n={event.node.metadata.count}', c: ['{steps.1.output.id}'] }, context)).toEqual({
      a: 3,
      b: 'n=3',
      c: ['x'],
    });
  });

  it('a variable that does not resolve throws, never an empty string', () => {
    expect(() => resolveVariables('Sett: {event.node.metadata.missing}', context)).toThrow('Variabelen {event.node.metadata.missing} finnes ikke');
    expect(() => resolveVariables('{steps.2.output.id}', context)).toThrow('Variabelen {steps.2.output.id} finnes ikke');
  });

  it('a null value does not resolve either', () => {
    expect(() => resolveVariables('{event.node.title}', { ...context, event: { type: 'node.created', node: { title: null } } })).toThrow('har ingen verdi');
  });

  it('braces that are not variables are left alone', () => {
    expect(resolveVariables('{"a": 1} { x }', context)).toBe('{"a": 1} { x }');
  });
});

describe('the step and fallback state machine', () => {
  const script = `steps:
  - action: create_node
    with: { node_kind: content, title: "Sett: {event.node.title}" }
    fallback:
      action: create_node
      with: { node_kind: content, title: "Reserve: {error}" }
  - action: set_metadata
    with: { node_id: "{steps.1.output.id}", key: seen, value: "{event.node.metadata.count}" }
  - action: http_post
    with: { url: "https://example.test/" }
fallback:
  action: set_metadata
  with: { node_id: "{event.node.id}", key: orchestration_error, value: "{error}" }
`;

  it('steps run in order, each output available to later steps', async () => {
    const { outcome, log, calls } = await run(script, { create_node: () => ({ id: ID }) });
    expect(outcome).toMatchObject({ kind: 'completed', steps: 3 });
    expect(log.map((r) => [r.step, r.action, r.status])).toEqual([
      [1, 'create_node', 'ok'],
      [2, 'set_metadata', 'ok'],
      [3, 'http_post', 'ok'],
    ]);
    expect(calls[0]!.input).toEqual({ node_kind: 'content', title: 'Sett: Hei' });
    expect(calls[1]!.input).toEqual({ node_id: ID, key: 'seen', value: 3 });
  });

  it("a failed step runs its fallback, whose output stands in for the step's", async () => {
    let first = true;
    const { outcome, log, calls } = await run(script, {
      create_node: () => (first ? ((first = false), new Error('nei')) : { id: ID }),
    });
    expect(outcome.kind).toBe('completed');
    expect(log.map((r) => [r.step, r.fallback, r.status, r.error])).toEqual([
      [1, null, 'failed', 'nei'],
      [1, 'step', 'fallback_ok', undefined],
      [2, null, 'ok', undefined],
      [3, null, 'ok', undefined],
    ]);
    expect(calls[1]!.input.title).toBe('Reserve: nei');
  });

  it('step fallback failing runs the global fallback with {error}, then stops', async () => {
    const { outcome, log, calls } = await run(script, { create_node: () => new Error('database sier nei') });
    expect(outcome).toMatchObject({ kind: 'stopped', step: 1, error: 'database sier nei' });
    expect(log.map((r) => [r.step, r.action, r.fallback, r.status])).toEqual([
      [1, 'create_node', null, 'failed'],
      [1, 'create_node', 'step', 'fallback_failed'],
      [1, 'set_metadata', 'global', 'fallback_ok'],
      [1, null, null, 'skipped'],
    ]);
    expect(log[3]!.error).toBe('Stoppet etter feil i steg 1; 2 steg hoppet over');
    expect(calls.at(-1)).toEqual({ action: 'set_metadata', input: { node_id: ID, key: 'orchestration_error', value: 'database sier nei' } });
  });

  it('a missing variable fails its step without calling the action', async () => {
    const text = `steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: a, value: "{event.node.metadata.nope}" }\n`;
    const { outcome, log, calls } = await run(text, {});
    expect(outcome.kind).toBe('stopped');
    expect(log[0]).toMatchObject({ status: 'failed', error: 'Variabelen {event.node.metadata.nope} finnes ikke' });
    expect(calls).toEqual([]);
  });

  it('a resolved input of the wrong shape fails the step', async () => {
    const text = `steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.title}", key: a, value: 1 }\n`;
    const { log } = await run(text, {});
    expect(log[0]).toMatchObject({ status: 'failed' });
    expect(log[0]!.error).toMatch(/^Ugyldig input til set_metadata: node_id: /);
  });

  it('without any fallback a failure stops at once, logged', async () => {
    const text = `steps:\n  - action: http_post\n    with: { url: "https://a.test/" }\n  - action: http_post\n    with: { url: "https://b.test/" }\n`;
    const { log, calls } = await run(text, { http_post: () => new Error('Verten a.test er ikke tillatt') });
    expect(log.map((r) => r.status)).toEqual(['failed', 'skipped']);
    expect(calls).toHaveLength(1);
  });
});

describe('an action the port skips (the budget is spent)', () => {
  const script = `steps:
  - action: create_node
    with: { node_kind: content, title: "a" }
    fallback:
      action: create_node
      with: { node_kind: content, title: "b" }
  - action: create_node
    with: { node_kind: content, title: "c" }
fallback:
  action: set_metadata
  with: { node_id: "{event.node.id}", key: orchestration_error, value: "{error}" }
`;

  it('is one skipped row naming what was left undone; no fallback runs and the run stops', async () => {
    const { outcome, log, calls } = await run(script, { create_node: () => new ActionSkipped('Ikke kjørt: budsjettet er brukt opp') });
    expect(outcome).toMatchObject({ kind: 'stopped', step: 1, error: 'Ikke kjørt: budsjettet er brukt opp' });
    expect(log).toEqual([{ step: 1, action: 'create_node', fallback: null, status: 'skipped', error: 'Ikke kjørt: budsjettet er brukt opp; 2 steg hoppet over', duration_ms: 0 }]);
    expect(calls).toHaveLength(1);
  });

  it('a skipped fallback stops the run too, after the failed step', async () => {
    let first = true;
    const { log } = await run(script, { create_node: () => (first ? ((first = false), new Error('nei')) : new ActionSkipped('Ikke kjørt: brukt opp')) });
    expect(log.map((r) => [r.step, r.fallback, r.status, r.error])).toEqual([
      [1, null, 'failed', 'nei'],
      [1, 'step', 'skipped', 'Ikke kjørt: brukt opp; 1 steg hoppet over'],
    ]);
  });
});

describe('variables in an http_post URL (issue 22, finding 14)', () => {
  const context = (title: unknown) => ({ event: { type: 'node.created' as const, node: { id: ID, title } }, outputs: new Map() });

  it('are percent-encoded, dots included: a value cannot change the path, query or fragment', () => {
    expect(resolveUrl('https://a.test/hooks/{event.node.title}?x={event.node.id}', context('..%2F..%2Fadmin?x=1#'))).toBe(
      `https://a.test/hooks/%2E%2E%252F%2E%2E%252Fadmin%3Fx%3D1%23?x=${ID}`,
    );
    expect(new URL(resolveUrl('https://a.test/hooks/{event.node.title}', context('../../admin'))).pathname).toBe('/hooks/%2E%2E%2F%2E%2E%2Fadmin');
    expect(resolveUrl('https://a.test/n/{event.node.title}', context({ a: 1 }))).toBe('https://a.test/n/%7B%22a%22%3A1%7D');
  });

  it('a value that would make a . or .. segment fails the step', () => {
    expect(() => resolveUrl('https://a.test/hooks/{event.node.title}/x', context('..'))).toThrow('Variablene i url gir stisegmentet . eller ..');
    expect(() => resolveUrl('https://a.test/hooks/.{event.node.title}', context('.'))).toThrow('Variablene i url gir stisegmentet . eller ..');
    expect(resolveUrl('https://a.test/hooks/v{event.node.title}', context('..'))).toBe('https://a.test/hooks/v%2E%2E');
  });

  it('the runner fills the URL so, and other fields as text', async () => {
    const text = `steps:\n  - action: http_post\n    with: { url: "https://a.test/{event.node.title}", body: { t: "{event.node.title}" } }\n`;
    const log: StepRecord[] = [];
    const calls: JsonObject[] = [];
    await runScript(parseScript(text), { type: 'node.created', node: { id: ID, title: 'a/b?c' } }, {
      port: { run: async (_action, input) => (calls.push(input), {}) },
      record: async (r) => void log.push(r),
      signal: new AbortController().signal,
    });
    expect(calls).toEqual([{ url: 'https://a.test/a%2Fb%3Fc', body: { t: 'a/b?c' } }]);
  });
});
