import { describe, expect, it } from '@jest/globals';
import { genericExtraction } from './generic-extraction.js';
import { renderPayload } from './registry.js';

describe('generic extraction', () => {
  it('takes the payload field title when it is a string', () => {
    expect(genericExtraction({ title: 'Hei', content: 'x' }).title).toBe('Hei');
  });

  it('gives an empty title when title is not a string', () => {
    expect(genericExtraction({ title: 42 }).title).toBe('');
    expect(genericExtraction({}).title).toBe('');
  });

  it('takes content when present, otherwise body', () => {
    expect(genericExtraction({ content: 'c', body: 'b' }).content).toBe('c');
    expect(genericExtraction({ body: 'b' }).content).toBe('b');
  });

  it('gives empty content when the chosen value is not a string, even if body is', () => {
    expect(genericExtraction({ content: null, body: 'b' }).content).toBe('');
    expect(genericExtraction({ body: { nested: true } }).content).toBe('');
  });

  it('has no extra metadata', () => {
    expect(genericExtraction({ title: 't' }).extra_metadata).toEqual({});
  });

  it('accepts any JSON value as a payload', () => {
    for (const payload of [[1, 2], 'text', 7, null, true]) {
      expect(genericExtraction(payload)).toEqual({ title: '', content: '', extra_metadata: {} });
    }
  });
});

describe('renderPayload', () => {
  it('uses generic extraction when template_id is absent', () => {
    const r = renderPayload(undefined, { title: 't' }, {});
    expect(r).toEqual({ result: { title: 't', content: '', extra_metadata: {} }, templateId: null, unknownTemplate: false });
  });

  it('uses generic extraction and flags an unknown template_id', () => {
    const r = renderPayload('no-such-template', { title: 't' }, {});
    expect(r.result.title).toBe('t');
    expect(r.unknownTemplate).toBe(true);
  });
});
