import { describe, expect, it } from '@jest/globals';
import { belongsToCap, inheritedLevel, effectiveLevel, grantingEdge, levelGrantedBy, levelToGrant, meets } from './grants.js';
import { ACCESS_LEVELS } from './levels.js';

describe('granting edges', () => {
  it('owner grants owner, member_of grants member or its metadata.access, other edges grant nothing', () => {
    expect(levelGrantedBy('owner', {})).toBe('owner');
    expect(levelGrantedBy('member_of', {})).toBe('member');
    expect(levelGrantedBy('member_of', { access: 'admin' })).toBe('admin');
    expect(levelGrantedBy('member_of', { access: 'reader' })).toBe('reader');
    expect(levelGrantedBy('member_of', { access: 'owner' })).toBe('member');
    expect(levelGrantedBy('belongs_to', {})).toBeNull();
    expect(levelGrantedBy('observes', { access: 'owner' })).toBeNull();
  });

  it('grant_access makes the edge that grants exactly the level asked for', () => {
    for (const level of ACCESS_LEVELS) {
      const edge = grantingEdge(level);
      expect(levelGrantedBy(edge.edge_type, edge.metadata)).toBe(level);
    }
  });
});

describe('write rules', () => {
  it('granting owner takes owner; any other level takes admin', () => {
    expect(ACCESS_LEVELS.map(levelToGrant)).toEqual(['admin', 'admin', 'admin', 'owner']);
  });

  it('a system administrator holds owner everywhere; others hold their row', () => {
    expect(effectiveLevel({ personId: 'p', isAdmin: true }, null)).toBe('owner');
    expect(effectiveLevel({ personId: 'p', isAdmin: false }, 'reader')).toBe('reader');
  });

  it('no requirement is always met; a missing row meets none', () => {
    expect(meets(null, null)).toBe(true);
    expect(meets(null, 'reader')).toBe(false);
    expect(meets('admin', 'member')).toBe(true);
  });
});

describe('belongs_to caps', () => {
  it('an admin passes rows down lowered to admin; an owner passes them as they are', () => {
    expect(belongsToCap('admin')).toEqual({ max_access: 'admin' });
    expect(belongsToCap('owner')).toEqual({});
    expect(inheritedLevel('owner', belongsToCap('admin'))).toBe('admin');
    expect(inheritedLevel('reader', belongsToCap('admin'))).toBe('reader');
    expect(inheritedLevel('owner', belongsToCap('owner'))).toBe('owner');
  });
});
