import { describe, expect, it } from '@jest/globals';
import { webhookContentNode } from './content-node.js';

describe('webhook content node', () => {
  const base = { webhookId: 'w', payload: { a: 1 }, extraMetadata: {} };

  it('stores an empty title or content as null', () => {
    const node = webhookContentNode({ ...base, title: '', content: '' });
    expect(node.title).toBeNull();
    expect(node.content).toBeNull();
  });

  it("merges the template's extra metadata at the top level, the template winning a clash", () => {
    const node = webhookContentNode({
      ...base,
      title: 't',
      content: 'c',
      extraMetadata: { source: 'github', event: 'push' },
    });
    expect(node.metadata).toEqual({ source: 'github', webhook_id: 'w', payload: { a: 1 }, event: 'push' });
    expect(node.visibility).toBe('hidden');
    expect(node.node_kind).toBe('content');
    expect(node.created_by).toBe('w');
  });
});
