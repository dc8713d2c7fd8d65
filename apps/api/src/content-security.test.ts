import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { OPERATOR, createNode } from '@inntak/access';
import { uuidv7 } from '@inntak/core';
import { LocalFileStore } from '@inntak/files';
import { fileKeyOf, type MediaMetadata } from '@inntak/media';
import { createMediaNode } from '@inntak/postgres/media';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';
import { studioApp } from './__tests__/studio-scene.js';
import { createPublication, publishArticle } from '@inntak/publishing';
import { storesOn } from '@inntak/postgres/testing';

// What a browser may do with what this origin serves: media files, the published pages and the
// console share one origin, so none of them may run a script another can plant (docs/security.md,
// "Fifth attack (issue 35)", finding 8).

let ctx: TestContext;
let app: Express;
let files: LocalFileStore;
let owner: string;
let articleId: string;

beforeAll(async () => {
  ctx = await setupTestContext();
  files = new LocalFileStore(await mkdtemp(join(tmpdir(), 'inntak-content-security-')));
  app = ctx.app({ files });
  owner = await ctx.ownerAuthorization();
  articleId = (await createNode(storesOn(ctx.database.db).graph, { personId: ctx.ownerId, isAdmin: false }, { node_kind: 'content', title: 'Sak', content: 'Tekst', collection_id: ctx.collectionId })).id;
});
afterAll(() => ctx.close());

async function storedMedia(mime: string, bytes: Uint8Array): Promise<string> {
  const id = uuidv7();
  const key = fileKeyOf(id, mime);
  const temp = await files.writeTemp(key, bytes);
  const metadata: MediaMetadata = { media_type: 'image', mime, bytes: bytes.byteLength, generated: false, regenerable: false, last_accessed_at: new Date().toISOString() };
  await createMediaNode(ctx.database.db, { id, ownerId: articleId, title: 'Fil', metadata });
  await files.commit(temp, key);
  return id;
}

/** The directives of a Content-Security-Policy, by name. */
function directives(header: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of (header ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out[name] = values;
  }
  return out;
}

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe('media answers', () => {
  it('carry nosniff, a sandboxing CSP that loads nothing, and Content-Disposition inline with a safe name for a type a browser plays', async () => {
    const id = await storedMedia('image/png', Uint8Array.from([0x89, 0x50, 0x4e, 0x47]));
    const res = await request(app).get(`/media/${id}`).set('Authorization', owner);
    expect(res.status).toBe(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const csp = directives(res.headers['content-security-policy']);
    expect(csp['default-src']).toEqual(["'none'"]);
    expect(csp).toHaveProperty('sandbox');
    expect(res.headers['content-disposition']).toBe(`inline; filename="${id}.png"`);
  });

  it('serve a stored type a browser could run (SVG with a script) as an attachment, sandboxed', async () => {
    const id = await storedMedia('image/svg+xml', new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'));
    const res = await request(app).get(`/media/${id}`).set('Authorization', owner);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${id}.bin"`);
    expect(directives(res.headers['content-security-policy'])).toHaveProperty('sandbox');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('the published pages', () => {
  it('answer with a CSP that allows no script at all and only the page’s own style, loads only from this origin, and frames nothing', async () => {
    const pub = await createPublication(storesOn(ctx.database.db).publishing, OPERATOR, { title: 'Avis', slug: 'avis', ownerId: ctx.ownerId });
    await publishArticle(storesOn(ctx.database.db).publishing, OPERATOR, { publication_id: pub.id, node_id: articleId });
    for (const path of ['/pub/avis', `/pub/avis/artikkel/${articleId}`, '/pub/avis/finnes-ikke', '/pub/ingen-slik']) {
      const res = await request(app).get(path);
      expect([200, 404]).toContain(res.status);
      const csp = directives(res.headers['content-security-policy']);
      expect({ path, 'default-src': csp['default-src'] }).toEqual({ path, 'default-src': ["'none'"] });
      expect(csp['script-src']).toBeUndefined();
      expect(csp['frame-ancestors']).toEqual(["'none'"]);
      expect(csp['form-action']).toEqual(["'self'"]);
      expect(csp['base-uri']).toEqual(["'none'"]);
      // The inline style is allowed by its hash, so the page looks as it did; nothing else inline.
      const styles = [...res.text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
      expect(styles.length).toBeGreaterThan(0);
      for (const style of styles) expect(csp['style-src']).toContain(hashOf(style));
      expect(csp['style-src']).not.toContain("'unsafe-inline'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});

describe('the console', () => {
  it('allows only its own script by hash (no unsafe-inline) and posts forms only to itself', async () => {
    const studio = studioApp(ctx);
    const res = await request(studio).get('/studio/login');
    expect(res.status).toBe(200);
    const csp = directives(res.headers['content-security-policy']);
    expect(csp['script-src']).not.toContain("'unsafe-inline'");
    expect(csp['form-action']).toEqual(["'self'"]);
    const scripts = [...res.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    for (const script of scripts) expect(csp['script-src']).toContain(hashOf(script));
    expect(res.text).not.toMatch(/\son[a-z]+=/);
  });
});

// Found attacking the merged result (issue 35): the API reference shares the console's origin,
// but answered with no CSP, no nosniff, could be framed, and /docs/assets served the whole
// swagger-ui-dist package, pages that run scripts included (its demo index.html, which loads a
// document from petstore.swagger.io, and oauth2-redirect.html).
describe('the API reference (/docs)', () => {
  it('runs only its own scripts from this origin, cannot be framed, is not sniffed, and serves only the two assets it loads', async () => {
    for (const path of ['/docs', '/docs/init.js', '/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js']) {
      const res = await request(app).get(path);
      expect([path, res.status]).toEqual([path, 200]);
      const csp = directives(res.headers['content-security-policy']);
      expect({ path, 'default-src': csp['default-src'], 'script-src': csp['script-src'] }).toEqual({ path, 'default-src': ["'none'"], 'script-src': ["'self'"] });
      expect(csp['connect-src']).toEqual(["'self'"]);
      expect(csp['frame-ancestors']).toEqual(["'none'"]);
      expect(csp['form-action']).toEqual(["'self'"]);
      expect(csp['base-uri']).toEqual(["'none'"]);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    for (const path of ['/docs/assets/index.html', '/docs/assets/oauth2-redirect.html', '/docs/assets/swagger-initializer.js', '/docs/assets/swagger-ui.js.map', '/docs/assets/package.json']) {
      const res = await request(app).get(path);
      expect([path, res.status]).toEqual([path, 404]);
    }
  });
});
