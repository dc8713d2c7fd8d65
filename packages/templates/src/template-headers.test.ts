import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { TEMPLATE_HEADERS } from './types.js';

describe('TEMPLATE_HEADERS', () => {
  it('names every header a template reads, so a re-render sees what the first rendering saw', () => {
    const here = new URL('./', import.meta.url);
    const sources = readdirSync(here).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'types.ts');
    const read = new Set(sources.flatMap((f) => [...readFileSync(new URL(f, here), 'utf8').matchAll(/'(x-[a-z0-9-]+)'/g)].map((m) => m[1]!)));
    expect([...read].sort()).toEqual([...TEMPLATE_HEADERS].sort());
  });
});
