import { describe, expect, it } from '@jest/globals';
import { AppError } from '@inntak/core';
import { checkOrchestrationNode, parseScript, ScriptError, type ActionStep } from './index.js';

const ID = '0190a0a0-0000-7000-8000-000000000001';

function problem(text: string, event?: 'node.created' | 'edge.created'): ScriptError {
  try {
    parseScript(text, { event });
  } catch (error) {
    if (error instanceof ScriptError) return error;
    throw error;
  }
  throw new Error('expected a ScriptError');
}

describe('orchestration scripts', () => {
  it('a valid script with step fallbacks and a global fallback parses to its steps', () => {
    const script = parseScript(`steps:
  - action: create_node
    with: { collection_id: "${ID}", node_kind: content, title: "Sett: {event.node.title}" }
    fallback:
      action: create_node
      with: { collection_id: "${ID}", node_kind: content, title: "Reserve: {event.node.id}" }
  - action: set_metadata
    with: { node_id: "{steps.1.output.id}", key: seen, value: true }
fallback:
  action: set_metadata
  with: { node_id: "{event.node.id}", key: orchestration_error, value: "{error}" }
`);
    expect(script.steps).toHaveLength(2);
    expect((script.steps[0] as ActionStep).fallback?.action).toBe('create_node');
    expect(script.fallback?.with).toEqual({ node_id: '{event.node.id}', key: 'orchestration_error', value: '{error}' });
  });

  it('a YAML syntax error names its line and column', () => {
    const error = problem('steps:\n  - action: create_node\n    with: { node_kind: content\n');
    expect(error.line).toBe(4);
    expect(error.message).toMatch(/^linje 4, kolonne \d+: ugyldig YAML/);
  });

  it('an unknown action names the line and column of its value', () => {
    const error = problem('steps:\n  - action: create_node\n    with: { node_kind: a }\n  - action: launch_rocket\n');
    expect([error.line, error.column]).toEqual([4, 13]);
    expect(error.problem).toMatch(/^steg 2: action: /);
  });

  it('an unknown field names the key itself', () => {
    const error = problem('steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: a, value: 1, colour: red }\n');
    expect([error.line, error.column]).toEqual([3, 59]);
    expect(error.problem).toBe('steg 1: with.colour: ukjent felt');
  });

  it('a missing required input names the with map', () => {
    const error = problem('steps:\n  - action: create_edge\n    with:\n      source_id: "{event.node.id}"\n      edge_type: observes\n');
    expect(error.line).toBe(4);
    expect(error.problem).toMatch(/^steg 1: with\.target_id: /);
  });

  it('a value that is neither valid nor a variable is refused', () => {
    const error = problem(`steps:\n  - action: set_metadata\n    with: { node_id: not-an-id, key: a, value: 1 }\n`);
    expect([error.line, error.column]).toEqual([3, 22]);
  });

  it('{error} outside a fallback is refused where it stands', () => {
    const error = problem('steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: a, value: "{error}" }\n');
    expect([error.line, error.column]).toEqual([3, 56]);
    expect(error.problem).toBe('steg 1: with.value: {error} finnes bare i en fallback');
  });

  it('{steps.n} may only name an earlier step', () => {
    const error = problem('steps:\n  - action: set_metadata\n    with: { node_id: "{steps.1.output.id}", key: a, value: 1 }\n');
    expect(error.problem).toBe('steg 1: with.node_id: {steps.1.output.id}: steg 1 har ikke kjørt ennå her');
  });

  it('an unknown variable root is refused', () => {
    expect(problem('steps:\n  - action: http_post\n    with: { url: "https://x.test/{env.HOME}" }\n').problem).toMatch(/ukjent variabel/);
  });

  it('edge variables are refused for a node.created trigger', () => {
    const error = problem('steps:\n  - action: set_metadata\n    with: { node_id: "{event.edge.id}", key: a, value: 1 }\n', 'node.created');
    expect(error.problem).toMatch(/for node\.created$/);
  });

  it('YAML aliases are refused (they could blow a small text up)', () => {
    expect(problem('a: &x [1, 2]\nsteps:\n  - action: http_post\n    with: { url: "https://x.test", body: *x }\n').problem).toMatch(/aliaser/);
  });

  it('generate_tts rate is words per minute, 80–450, checked before saving (tts_generate takes the same unit)', () => {
    const tts = (rate: string) => `steps:\n  - action: generate_tts\n    with: { node_id: "{event.node.id}", rate: ${rate} }\n`;
    expect((parseScript(tts('200')).steps[0] as ActionStep).with.rate).toBe(200);
    const error = problem(tts('1.5'));
    expect([error.line, error.column]).toEqual([3, 47]);
    expect(error.problem).toMatch(/^steg 1: with\.rate: /);
    expect(problem(tts('451')).problem).toMatch(/^steg 1: with\.rate: /);
    expect(problem(tts('79')).problem).toMatch(/^steg 1: with\.rate: /);
  });

  it('a script without steps is refused', () => {
    expect(problem('steps: []\n').problem).toMatch(/^steps: /);
  });
});

describe('orchestration nodes', () => {
  const script = `steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: seen, value: true }\n`;

  it('a trigger and script are accepted, the tag normalized', () => {
    const { trigger } = checkOrchestrationNode({ metadata: { trigger: { event: 'node.created', conditions: { has_tag: '  Nyheter ' } } }, content: script });
    expect(trigger).toEqual({ event: 'node.created', conditions: { has_tag: 'nyheter' } });
  });

  it('an unknown event is a 400 naming the field', () => {
    expect(() => checkOrchestrationNode({ metadata: { trigger: { event: 'node.deleted' } }, content: script })).toThrow(/^metadata\.trigger\.event: /);
  });

  it('edge_type is only a condition of edge.created', () => {
    expect(() => checkOrchestrationNode({ metadata: { trigger: { event: 'node.created', conditions: { edge_type: 'belongs_to' } } }, content: script })).toThrow(
      'metadata.trigger.conditions.edge_type: gjelder bare edge.created',
    );
  });

  it('an invalid script is the same 400 as validate_orchestration', () => {
    let thrown: unknown;
    try {
      checkOrchestrationNode({ metadata: { trigger: { event: 'node.created' } }, content: 'steps:\n  - action: nope\n' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).detail).toMatch(/^skript: linje 2, kolonne 13: steg 1: action: /);
  });
});
