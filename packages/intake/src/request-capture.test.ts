import { describe, expect, it } from '@jest/globals';
import { BODY_CAP_BYTES, HEADER_CAPS, keptBody, keptHeaders, MASKED, signatureRefusalReason } from './request-capture.js';

describe('what the delivery inspector keeps of a request', () => {
  it('masks signatures, authorization and anything named secret, token or signature; keeps the rest as sent', () => {
    const kept = keptHeaders({
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': 'abc-123',
      'x-hub-signature-256': 'sha256=deadbeef',
      'x-hub-signature': 'sha1=deadbeef',
      authorization: 'Bearer xyz',
      'x-slack-signature': 'v0=abc',
      'webhook-signature': 'v1,abc',
      'x-gitlab-token': 'glpat',
      'x-my-secret-header': 's',
      'x-api-key': 'k',
      cookie: 'a=b',
      'x-absent': undefined,
    });
    expect(kept).toEqual({
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': 'abc-123',
      'x-hub-signature-256': MASKED,
      'x-hub-signature': MASKED,
      authorization: MASKED,
      'x-slack-signature': MASKED,
      'webhook-signature': MASKED,
      'x-gitlab-token': MASKED,
      'x-my-secret-header': MASKED,
      'x-api-key': MASKED,
      cookie: MASKED,
    });
  });

  it('replaces the webhook’s token in any header value (a Referer or a proxy’s X-Original-URL echoing the URL), and masks HMAC headers', () => {
    const token = '0192f1a2-1111-7222-8333-444455556666';
    const kept = keptHeaders(
      {
        referer: `https://x/api/webhook/${token}`,
        'x-original-url': `/api/webhook/${token.toUpperCase()}?a=${token}`,
        'x-shopify-hmac-sha256': 'abc=',
        'x-github-event': 'push',
      },
      token,
    );
    expect(kept).toEqual({ referer: 'https://x/api/webhook/:token', 'x-original-url': '/api/webhook/:token?a=:token', 'x-shopify-hmac-sha256': MASKED, 'x-github-event': 'push' });
  });

  it('keeps at most 64 headers, each value cut at 1,000 characters', () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-h${i}`, 'v'.repeat(5000)]));
    const kept = keptHeaders(many);
    expect(Object.keys(kept)).toHaveLength(HEADER_CAPS.count);
    expect(Object.values(kept).every((v) => v.length === HEADER_CAPS.valueChars)).toBe(true);
  });

  it('cuts a body at 64 KiB and marks it truncated, and replaces the webhook’s token', () => {
    const token = '0192f1a2-1111-7222-8333-444455556666';
    expect(keptBody(Buffer.from(`{"url":"https://x/api/webhook/${token.toUpperCase()}"}`), token)).toEqual({ text: '{"url":"https://x/api/webhook/:token"}', truncated: false });
    const big = keptBody(Buffer.alloc(BODY_CAP_BYTES + 10, 'a'), token);
    expect(big).toEqual({ text: 'a'.repeat(BODY_CAP_BYTES), truncated: true });
  });

  it('names why a signature failed: missing, wrong, a stale Slack timestamp', () => {
    expect(signatureRefusalReason({ scheme: 'github', secret: 's' }, {}, undefined)).toBe('signaturen mangler (X-Hub-Signature-256)');
    expect(signatureRefusalReason({ scheme: 'github', secret: 's' }, { 'x-hub-signature-256': 'sha256=00' }, Buffer.from('{}'))).toBe('signaturen stemmer ikke med hemmeligheten');
    expect(signatureRefusalReason({ scheme: 'gitlab', secret: 's' }, { 'x-gitlab-token': 'feil' }, undefined)).toBe('feil token i X-Gitlab-Token');
    expect(signatureRefusalReason({ scheme: 'slack', secret: 's' }, { 'x-slack-signature': 'v0=00', 'x-slack-request-timestamp': '1' }, undefined)).toBe('tidsstempelet er ugyldig eller for gammelt');
    expect(signatureRefusalReason({ scheme: 'standard-webhooks', secret: 's' }, { 'webhook-id': 'a', 'webhook-timestamp': '1' }, undefined)).toBe('signaturen mangler (webhook-signature)');
  });
});
