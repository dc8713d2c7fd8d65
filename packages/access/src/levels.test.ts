import { describe, expect, it } from '@jest/globals';
import { grants } from './levels.js';

describe('access levels', () => {
  it('order reader < member < admin < owner', () => {
    expect(grants('owner', 'admin')).toBe(true);
    expect(grants('admin', 'admin')).toBe(true);
    expect(grants('member', 'admin')).toBe(false);
    expect(grants('reader', 'member')).toBe(false);
  });

  it('grant nothing without a row', () => {
    expect(grants(null, 'reader')).toBe(false);
  });
});
