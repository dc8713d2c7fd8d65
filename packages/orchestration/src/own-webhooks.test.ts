import { describe, expect, it } from '@jest/globals';
import { uuidsInUrl } from './own-webhooks.js';

const TOKEN = '0192f3a4-5b6c-7d8e-9f01-23456789abcd';

describe('uuidsInUrl (http_post into the service’s own webhooks, second attack on issue 22)', () => {
  it('finds a token in any letter case, percent-encoded (also twice), in the path or the query, in lower case', () => {
    expect(uuidsInUrl(`http://h/api/webhook/${TOKEN}`)).toEqual([TOKEN]);
    expect(uuidsInUrl(`http://h/API/Webhook/${TOKEN.toUpperCase()}`)).toEqual([TOKEN]);
    expect(uuidsInUrl(`http://h/api/webhook/%${TOKEN.charCodeAt(0).toString(16)}${TOKEN.slice(1)}`)).toEqual([TOKEN]);
    expect(uuidsInUrl(`http://h/videre?til=${encodeURIComponent(encodeURIComponent(`/api/webhook/${TOKEN}`))}`)).toEqual([TOKEN]);
  });

  it('finds nothing in a URL without a UUID, and survives a malformed escape', () => {
    expect(uuidsInUrl('http://h/ting?a=1')).toEqual([]);
    expect(uuidsInUrl(`http://h/%E0%A4%A/${TOKEN}`)).toEqual([TOKEN]);
  });
});
