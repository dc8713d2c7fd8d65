import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { secretProblem, signaturePlausible, verifySignature } from './signatures.js';
import { loggableDeliveryId, senderDeliveryId, senderEvent } from './delivery-facts.js';

const body = Buffer.from('{"zen":"Keep it logically awesome."}');
const hex = (secret: string, data: Buffer | string) => createHmac('sha256', secret).update(data).digest('hex');

describe('verifySignature', () => {
  it('github: sha256=<hex HMAC of the body> in X-Hub-Signature-256; not the old sha1 header, not another prefix', () => {
    const secret = { scheme: 'github' as const, secret: 'abc' };
    expect(verifySignature(secret, { 'x-hub-signature-256': `sha256=${hex('abc', body)}` }, body)).toBe(true);
    expect(verifySignature(secret, { 'x-hub-signature-256': `sha256=${hex('abc', body).toUpperCase()}` }, body)).toBe(true);
    expect(verifySignature(secret, { 'x-hub-signature-256': hex('abc', body) }, body)).toBe(false);
    expect(verifySignature(secret, { 'x-hub-signature': `sha1=${createHmac('sha1', 'abc').update(body).digest('hex')}` }, body)).toBe(false);
    expect(verifySignature(secret, { 'x-hub-signature-256': 'sha256=zz' }, body)).toBe(false);
    expect(verifySignature(secret, { 'x-hub-signature-256': `sha256=${'g'.repeat(64)}` }, body)).toBe(false);
  });

  it('gitea and forgejo: bare hex HMAC in X-Gitea-Signature or X-Forgejo-Signature', () => {
    const secret = { scheme: 'gitea' as const, secret: 'abc' };
    expect(verifySignature(secret, { 'x-gitea-signature': hex('abc', body) }, body)).toBe(true);
    expect(verifySignature(secret, { 'x-forgejo-signature': hex('abc', body) }, body)).toBe(true);
    expect(verifySignature(secret, { 'x-gitea-signature': hex('abd', body) }, body)).toBe(false);
  });

  it('gitlab: X-Gitlab-Token equal to the secret, whatever the lengths', () => {
    const secret = { scheme: 'gitlab' as const, secret: 'tok' };
    expect(verifySignature(secret, { 'x-gitlab-token': 'tok' }, body)).toBe(true);
    expect(verifySignature(secret, { 'x-gitlab-token': 'to' }, body)).toBe(false);
    expect(verifySignature(secret, { 'x-gitlab-token': 'token-longer' }, body)).toBe(false);
    expect(verifySignature(secret, {}, body)).toBe(false);
  });

  it('slack: v0= HMAC over v0:timestamp:body, within 5 minutes either way', () => {
    const secret = { scheme: 'slack' as const, secret: 's' };
    const now = 1_700_000_000_000;
    const signed = (ts: number) => ({ 'x-slack-request-timestamp': String(ts), 'x-slack-signature': `v0=${hex('s', `v0:${ts}:${body.toString()}`)}` });
    expect(verifySignature(secret, signed(now / 1000), body, now)).toBe(true);
    expect(verifySignature(secret, signed(now / 1000 - 299), body, now)).toBe(true);
    expect(verifySignature(secret, signed(now / 1000 - 301), body, now)).toBe(false);
    expect(verifySignature(secret, signed(now / 1000 + 301), body, now)).toBe(false);
    expect(verifySignature(secret, { ...signed(now / 1000), 'x-slack-request-timestamp': '1e9' }, body, now)).toBe(false);
  });

  it('standard-webhooks: the library’s own signature passes, another key’s and a stale one do not', () => {
    const key = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const secret = { scheme: 'standard-webhooks' as const, secret: key };
    const at = new Date();
    const headers = (signingKey: string, when: Date) => ({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(when.getTime() / 1000)),
      'webhook-signature': new Webhook(signingKey).sign('msg_1', when, body),
    });
    expect(verifySignature(secret, headers(key, at), body)).toBe(true);
    expect(verifySignature(secret, headers('whsec_QWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo=', at), body)).toBe(false);
    expect(verifySignature(secret, headers(key, new Date(at.getTime() - 10 * 60_000)), body)).toBe(false);
    expect(verifySignature(secret, { 'webhook-id': 'msg_1' }, body)).toBe(false);
  });
});

describe('signaturePlausible (before the body is read)', () => {
  it('needs the scheme’s headers, a fresh Slack timestamp and the right GitLab token', () => {
    const now = 1_700_000_000_000;
    expect(signaturePlausible({ scheme: 'github', secret: 's' }, {})).toBe(false);
    expect(signaturePlausible({ scheme: 'github', secret: 's' }, { 'x-hub-signature-256': 'sha256=00' })).toBe(true);
    expect(signaturePlausible({ scheme: 'gitea', secret: 's' }, { 'x-forgejo-signature': 'ab' })).toBe(true);
    expect(signaturePlausible({ scheme: 'gitlab', secret: 's' }, { 'x-gitlab-token': 'x' })).toBe(false);
    expect(signaturePlausible({ scheme: 'gitlab', secret: 's' }, { 'x-gitlab-token': 's' })).toBe(true);
    const slack = { scheme: 'slack' as const, secret: 's' };
    expect(signaturePlausible(slack, { 'x-slack-signature': 'v0=00', 'x-slack-request-timestamp': String(now / 1000 - 400) }, now)).toBe(false);
    expect(signaturePlausible(slack, { 'x-slack-signature': 'v0=00', 'x-slack-request-timestamp': String(now / 1000) }, now)).toBe(true);
    expect(signaturePlausible({ scheme: 'standard-webhooks', secret: 'whsec_AAAA' }, { 'webhook-id': 'm', 'webhook-timestamp': '1' })).toBe(false);
  });
});

describe('secretProblem', () => {
  it('refuses an empty or overlong secret, and a standard-webhooks key that is not base64', () => {
    expect(secretProblem('github', '')).toBe('kan ikke være tom');
    expect(secretProblem('github', 'x'.repeat(1025))).toBe('kan være høyst 1024 tegn');
    expect(secretProblem('standard-webhooks', 'whsec_***')).toMatch(/base64/);
    expect(secretProblem('standard-webhooks', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBeNull();
  });
});

describe('delivery facts', () => {
  it('takes the delivery id from the senders’ headers, else Slack’s event_id; an overlong one throws 400', () => {
    expect(senderDeliveryId({ 'x-github-delivery': 'g-1' }, {})).toBe('g-1');
    expect(senderDeliveryId({ 'x-gitlab-event-uuid': 'l-1' }, {})).toBe('l-1');
    expect(senderDeliveryId({ 'webhook-id': 'msg_1' }, {})).toBe('msg_1');
    expect(senderDeliveryId({}, { type: 'event_callback', event_id: 'Ev1' })).toBe('Ev1');
    expect(senderDeliveryId({}, [{ event_id: 'Ev1' }])).toBeNull();
    expect(senderDeliveryId({ 'x-github-delivery': 'x'.repeat(200) }, {})).toBe('x'.repeat(200));
    expect(() => senderDeliveryId({ 'x-github-delivery': 'x'.repeat(201) }, {})).toThrow(
      expect.objectContaining({ code: 'invalid_input', detail: 'x-github-delivery: leverings-id-en kan være høyst 200 tegn' }),
    );
    expect(() => senderDeliveryId({}, { event_id: 'E'.repeat(201) })).toThrow(expect.objectContaining({ detail: 'event_id: leverings-id-en kan være høyst 200 tegn' }));
    expect(loggableDeliveryId({ 'x-github-delivery': 'x'.repeat(201) }, null)).toBeNull();
    expect(senderDeliveryId({}, {})).toBeNull();
  });

  it('with a signing scheme, takes the id only from what the scheme signs or the sender’s own header (issue 22, finding 11)', () => {
    const foreign = { 'x-github-delivery': 'added', 'x-gitea-delivery': 'added', 'x-gitlab-event-uuid': 'added', 'webhook-id': 'added' };
    expect(senderDeliveryId({ ...foreign, 'webhook-id': 'msg_signed' }, {}, 'standard-webhooks')).toBe('msg_signed');
    expect(senderDeliveryId(foreign, { event_id: 'EvSigned' }, 'slack')).toBe('EvSigned');
    expect(senderDeliveryId({ 'webhook-id': 'added' }, {}, 'github')).toBeNull();
    expect(senderDeliveryId({ ...foreign, 'x-github-delivery': 'gh-1' }, {}, 'github')).toBe('gh-1');
    expect(senderDeliveryId({ ...foreign, 'x-gitlab-event-uuid': 'gl-1' }, {}, 'gitlab')).toBe('gl-1');
    // Gogs signs with X-Gogs-Signature and names its delivery X-Gogs-Delivery; an added
    // X-Gitea-Delivery does not count.
    expect(senderDeliveryId({ 'x-gogs-signature': 'ab', 'x-gogs-delivery': 'gogs-1', 'x-gitea-delivery': 'added' }, {}, 'gitea')).toBe('gogs-1');
    expect(senderDeliveryId({ 'x-forgejo-signature': 'ab', 'x-forgejo-delivery': 'fj-1', 'x-gitea-delivery': 'added' }, {}, 'gitea')).toBe('fj-1');
    expect(senderDeliveryId({ 'x-gitea-signature': 'ab', 'x-gitea-delivery': 'gt-1', 'x-gogs-delivery': 'gt-1' }, {}, 'gitea')).toBe('gt-1');
    // An overlong foreign header is ignored, not refused: it is not where the id comes from.
    expect(senderDeliveryId({ 'x-github-delivery': 'x'.repeat(300), 'webhook-id': 'msg_1' }, {}, 'standard-webhooks')).toBe('msg_1');
  });

  it('names the event from the senders’ event headers', () => {
    expect(senderEvent({ 'x-gitlab-event': 'Push Hook' })).toBe('Push Hook');
    expect(senderEvent({ 'x-event-key': 'repo:push' })).toBe('repo:push');
    expect(senderEvent({})).toBeNull();
  });
});
