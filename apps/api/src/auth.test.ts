import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { generateKeyPair, SignJWT, base64url } from 'jose';
import { createHmac } from 'node:crypto';
import { NoIssuerVerifier } from './oidc-verifier.js';
import { OWNER_SUBJECT, setupTestContext, type TestContext } from './__tests__/helpers.js';
import { createPerson } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await setupTestContext();
});
afterAll(() => ctx.close());

function me(authorization?: string) {
  const req = request(ctx.app()).get('/me');
  return authorization === undefined ? req : req.set('Authorization', authorization);
}

function unsigned(claims: Record<string, unknown>, header: Record<string, unknown>): string {
  return `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(claims))}`;
}

describe('GET /me', () => {
  it('answers 401 Mangler Authorization-header without the header', async () => {
    const res = await me();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Mangler Authorization-header' });
  });

  it('answers 200 with the node id for a valid token of a known subject', async () => {
    const res = await me(`Bearer ${await ctx.tokenFor(OWNER_SUBJECT)}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ node_id: ctx.ownerId, admin: false });
  });

  it('answers 401 Ukjent brukeridentitet for a valid token of an unknown subject', async () => {
    const res = await me(`Bearer ${await ctx.tokenFor('stranger')}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Ukjent brukeridentitet' });
  });

  it('matches an identity registered for this very issuer, and marks system admins', async () => {
    const admin = await createPerson(storesOn(ctx.database.db).graph, { subject: 'boss', issuer: ctx.issuer.issuer, admin: true });
    const res = await me(`Bearer ${await ctx.tokenFor('boss')}`);
    expect(res.body).toEqual({ node_id: admin.id, admin: true });
  });

  it('does not match an identity registered for another issuer', async () => {
    await createPerson(storesOn(ctx.database.db).graph, { subject: 'elsewhere', issuer: 'https://other.example' });
    const res = await me(`Bearer ${await ctx.tokenFor('elsewhere')}`);
    expect(res.body).toEqual({ error: 'Ukjent brukeridentitet' });
  });

  describe('answers 401 Ugyldig token', () => {
    const cases: Array<[string, () => Promise<string>]> = [
      ['for a non-Bearer scheme', async () => `Basic ${Buffer.from('a:b').toString('base64')}`],
      ['for garbage', async () => 'Bearer not.a.jwt'],
      ['for the wrong audience', async () => `Bearer ${await ctx.issuer.token(OWNER_SUBJECT, { claims: { aud: 'someone-else' } })}`],
      ['for the wrong issuer', async () => `Bearer ${await ctx.issuer.token(OWNER_SUBJECT, { claims: { iss: 'https://evil.example' } })}`],
      ['for an expired token', async () => `Bearer ${await ctx.issuer.token(OWNER_SUBJECT, { expiresIn: '-5m' })}`],
      ['for a token not yet valid', async () => `Bearer ${await ctx.issuer.token(OWNER_SUBJECT, { notBefore: '10m' })}`],
      [
        'for alg none',
        async () => {
          const now = Math.floor(Date.now() / 1000);
          const claims = { sub: OWNER_SUBJECT, iss: ctx.issuer.issuer, aud: ctx.issuer.audience, iat: now, exp: now + 300 };
          return `Bearer ${unsigned(claims, { alg: 'none', typ: 'JWT' })}.`;
        },
      ],
      [
        'for HS256 signed with the public key (key confusion)',
        async () => {
          const now = Math.floor(Date.now() / 1000);
          const claims = { sub: OWNER_SUBJECT, iss: ctx.issuer.issuer, aud: ctx.issuer.audience, iat: now, exp: now + 300 };
          const input = unsigned(claims, { alg: 'HS256', typ: 'JWT', kid: 'test-key-1' });
          const secret = JSON.stringify(ctx.issuer.publicJwk);
          return `Bearer ${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
        },
      ],
      [
        'for a token signed by an unknown key',
        async () => {
          const { privateKey } = await generateKeyPair('RS256');
          return `Bearer ${await ctx.issuer.token(OWNER_SUBJECT, { kid: 'unknown-key', key: privateKey })}`;
        },
      ],
      [
        'for a token signed by another key under the known kid',
        async () => {
          const { privateKey } = await generateKeyPair('RS256');
          return `Bearer ${await new SignJWT({})
            .setProtectedHeader({ alg: 'RS256', kid: 'test-key-1' })
            .setSubject(OWNER_SUBJECT)
            .setIssuer(ctx.issuer.issuer)
            .setAudience(ctx.issuer.audience)
            .setExpirationTime('5m')
            .sign(privateKey)}`;
        },
      ],
    ];
    for (const [name, header] of cases) {
      it(name, async () => {
        const res = await me(await header());
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'Ugyldig token' });
      });
    }
  });

  it('answers 401 Ugyldig token to every token when no issuer is configured', async () => {
    const res = await request(ctx.app({ verifier: new NoIssuerVerifier() }))
      .get('/me')
      .set('Authorization', `Bearer ${await ctx.tokenFor(OWNER_SUBJECT)}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Ugyldig token' });
  });
});
