import { readFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import {
  deleteAlternatives,
  edgeRule,
  endNeed,
  metadataWriteNeed,
  requireCreateNode,
  requireEdgeOperation,
  requirePublishable,
  writePolicyMarkdown,
} from './write-policy.js';

const person = { personId: 'p', isAdmin: false };
const root = { personId: 'r', isAdmin: true };

describe('the write-policy table', () => {
  it('docs/access.md and docs/security.md carry the table the code has (writePolicyMarkdown)', async () => {
    for (const name of ['access.md', 'security.md']) {
      const doc = await readFile(new URL(`../../../docs/${name}`, import.meta.url), 'utf8');
      expect(doc).toContain(writePolicyMarkdown());
    }
  });

  it('a user-defined edge type gets the generic row: member on both ends, admin of either end may clean it up', () => {
    expect(edgeRule('relates_to')).toMatchObject({ create: { source: 'member', target: 'member' }, cleanup: 'admin' });
    expect(edgeRule('constructor')).toBe(edgeRule('relates_to'));
  });

  it('any edge at an orchestration needs admin on it; other kinds keep the row', () => {
    expect(endNeed('member', 'orchestration')).toBe('admin');
    expect(endNeed('exists', 'orchestration')).toBe('admin');
    expect(endNeed('owner', 'orchestration')).toBe('owner');
    expect(endNeed('member', 'content')).toBe('member');
    expect(endNeed(null, 'orchestration')).toBeNull();
  });

  it('a variant has no cleanup rule; a plain edge may be cleaned up from either end; a system edge takes admin on its target', () => {
    expect(deleteAlternatives({ edge_type: 'front_page_variant', system: false })).toEqual([{ source: 'admin', target: null, cleanup: false }]);
    expect(deleteAlternatives({ edge_type: 'observes', system: false })).toEqual([
      { source: 'admin', target: 'member', cleanup: false },
      { source: 'admin', target: null, cleanup: true },
      { source: null, target: 'admin', cleanup: true },
    ]);
    expect(deleteAlternatives({ edge_type: 'belongs_to', system: true })[0]).toEqual({ source: null, target: 'admin', cleanup: false });
    expect(deleteAlternatives({ edge_type: 'member_of', system: false })).toHaveLength(1);
  });

  it('create_edge and delete_edge refuse what publishing makes; delete_edge deletes a variant', () => {
    expect(() => requireEdgeOperation('published_in', 'create_edge')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => requireEdgeOperation('published_in', 'delete_edge')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => requireEdgeOperation('front_page_variant', 'create_edge')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => requireEdgeOperation('front_page_variant', 'delete_edge')).not.toThrow();
    expect(() => requireEdgeOperation('observes', 'create_edge')).not.toThrow();
  });

  it('create_node: a cli_tool only for a system administrator; own-operation kinds never; an orchestration makes no orchestration', () => {
    expect(() => requireCreateNode(person, 'cli_tool', 'api')).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(() => requireCreateNode(root, 'cli_tool', 'api')).not.toThrow();
    expect(() => requireCreateNode(root, 'cli_tool', 'orchestration')).not.toThrow();
    for (const kind of ['webhook', 'collection', 'person', 'tag', 'media']) {
      expect(() => requireCreateNode(root, kind, 'api')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    }
    expect(() => requireCreateNode(person, 'orchestration', 'api')).not.toThrow();
    expect(() => requireCreateNode(person, 'orchestration', 'orchestration')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => requireCreateNode(person, 'melding', 'orchestration')).not.toThrow();
  });

  it('metadata: member on content, admin on a collection (never its publication), a system administrator for a cli_tool, nobody for media', () => {
    expect(metadataWriteNeed(person, 'content', 'x')).toBe('member');
    expect(metadataWriteNeed(person, 'collection', 'theme')).toBe('admin');
    expect(() => metadataWriteNeed(root, 'collection', 'publication')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => metadataWriteNeed(person, 'cli_tool', 'command')).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(metadataWriteNeed(root, 'cli_tool', 'command')).toBe('owner');
    for (const kind of ['webhook', 'orchestration', 'media', 'tag', 'person']) {
      expect(() => metadataWriteNeed(root, kind, 'x')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    }
  });

  it('never publishable: orchestration, cli_tool, webhook, person, collection', () => {
    for (const kind of ['orchestration', 'cli_tool', 'webhook', 'person', 'collection']) {
      expect(() => requirePublishable(kind, 'node_id')).toThrow(expect.objectContaining({ code: 'invalid_input', detail: `node_id: en ${kind} kan ikke publiseres` }));
    }
    expect(() => requirePublishable('content', 'node_id')).not.toThrow();
    expect(() => requirePublishable('nyhetssak', 'node_id')).not.toThrow();
  });
});
