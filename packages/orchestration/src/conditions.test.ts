import { describe, expect, it } from '@jest/globals';
import { cpuGrowth } from './__tests__/growth.js';
import { checkOrchestrationNode, evaluateCondition, globMatches, parseScript, ScriptError, type Condition, type EventVariables } from './index.js';

const event: EventVariables = {
  type: 'node.created',
  node: { id: 'n', title: 'CI failed: widget#42', content: 'x'.repeat(10), node_kind: 'content', metadata: { status: 'failed', duration: '95', attempts: 3, labels: ['ci'] } },
};
const holds = (condition: Condition) => evaluateCondition(condition, { event, outputs: new Map() }).holds;

describe('conditions on content', () => {
  it('equals, in, exists and numeric compare read {event.node.metadata.*}', () => {
    expect(holds({ value: '{event.node.metadata.status}', equals: 'failed' })).toBe(true);
    expect(holds({ value: '{event.node.metadata.status}', equals: 'success' })).toBe(false);
    expect(holds({ value: '{event.node.metadata.status}', in: ['failed', 'error'] })).toBe(true);
    expect(holds({ value: '{event.node.metadata.missing}', exists: false })).toBe(true);
    expect(holds({ value: '{event.node.metadata.missing}', equals: 'x' })).toBe(false);
    expect(holds({ value: '{event.node.metadata.duration}', gt: 90, lte: 95 })).toBe(true);
    expect(holds({ value: '{event.node.metadata.attempts}', lt: 3 })).toBe(false);
    expect(holds({ value: '{event.node.metadata.labels}', equals: ['ci'] })).toBe(true);
  });

  it('matches is a case-insensitive glob over the title or content', () => {
    expect(holds({ value: '{event.node.title}', matches: 'ci FAILED*' })).toBe(true);
    expect(holds({ value: '{event.node.title}', matches: '*widget#4?' })).toBe(true);
    expect(holds({ value: '{event.node.title}', matches: '*success*' })).toBe(false);
    expect(holds({ value: '{event.node.content}', matches: 'x*x' })).toBe(true);
  });

  it('all, any and not combine them; the reason names the comparison that did not hold', () => {
    const condition: Condition = { all: [{ value: '{event.node.metadata.status}', equals: 'failed' }, { not: { value: '{event.node.title}', matches: '*flaky*' } }] };
    expect(holds(condition)).toBe(true);
    expect(holds({ any: [{ value: '{event.node.metadata.status}', equals: 'ok' }, { value: '{event.type}', equals: 'node.created' }] })).toBe(true);
    expect(evaluateCondition({ value: '{event.node.metadata.status}', equals: 'ok' }, { event, outputs: new Map() }).reason).toBe('{event.node.metadata.status} equals "ok" holdt ikke');
  });

  it('the glob runs in linear time on hostile text (runs of a, patterns of many stars and ?)', () => {
    const hostile = ['*a?a*a?a*a?a*a?a*b', 'a*' + 'a?'.repeat(90) + '*b'];
    for (const pattern of hostile) expect(globMatches(pattern, 'a'.repeat(1_000_000))).toBe(false);
    // 8 KB and 32 KB, under the 64 KB a glob reads (MATCH_TEXT_CAP): linear costs at most 4 times
    // as much, a backtracking glob 16 or more.
    const work = (size: number) => {
      const text = 'a'.repeat(size);
      return () => hostile.forEach((pattern) => globMatches(pattern, text));
    };
    expect(cpuGrowth(work, 8 * 1024)).toBeLessThan(10);
  });

  it('a condition in a script is checked with line and column: an unknown test, a value that is not one variable', () => {
    const problem = (text: string) => {
      try {
        parseScript(text, { event: 'node.created' });
      } catch (error) {
        if (error instanceof ScriptError) return error;
      }
      throw new Error('expected a ScriptError');
    };
    const unknown = problem('steps:\n  - filter: { value: "{event.node.title}", like: x }\n');
    expect([unknown.line, unknown.column]).toEqual([2, 44]);
    const text = problem('steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: a, value: 1 }\n    when: { value: "{event.edge.id}", exists: true }\n');
    expect([text.line, text.column]).toEqual([4, 20]);
    expect(text.problem).toMatch(/^steg 1: when\.value: \{event\.edge\.id\}: forventet/);
  });

  it("a trigger's where is checked against its event and stored as given", () => {
    const script = 'steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: seen, value: true }\n';
    const where = { value: '{event.node.metadata.status}', equals: 'failed' };
    expect(checkOrchestrationNode({ metadata: { trigger: { event: 'node.created', where } }, content: script }).trigger.where).toEqual(where);
    expect(() => checkOrchestrationNode({ metadata: { trigger: { event: 'node.created', where: { value: '{event.edge.metadata.x}', exists: true } } }, content: script })).toThrow(
      /^metadata\.trigger\.where\.value: /,
    );
  });
});
