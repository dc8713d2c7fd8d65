import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { RouteRegistry } from '../route-registry.js';
import { openApiDocument } from './openapi.js';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';

let ctx: TestContext;
interface Schema {
  properties: Record<string, { enum?: string[] }>;
}
let doc: {
  openapi: string;
  paths: Record<string, Record<string, { security: unknown[]; requestBody: { content: Record<string, { schema: Schema }> }; responses: Record<string, unknown> }>>;
};

beforeAll(async () => {
  ctx = await setupTestContext();
  const res = await request(ctx.app()).get('/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => ctx.close());

describe('GET /openapi.json', () => {
  it('is a public OpenAPI 3.1 document of the whole REST surface', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/admin/jobs',
      '/admin/orchestrations/{id}',
      '/admin/orchestrations/{id}/log',
      '/admin/orchestrations/{id}/runs',
      '/admin/resources',
      '/admin/resources/disk',
      '/admin/resources/update_rule',
      '/admin/webhooks',
      '/admin/webhooks/templates',
      '/admin/webhooks/templates/{id}/preview',
      '/admin/webhooks/{id}/deliveries',
      '/admin/webhooks/{id}/deliveries/{delivery_id}/replay',
      '/admin/webhooks/{id}/previous-tokens',
      '/admin/webhooks/{id}/requests',
      '/admin/webhooks/{id}/requests/{request_id}',
      '/api/webhook/{token}',
      '/favicon.ico',
      '/health',
      '/health/ready',
      '/intentions/ab_override',
      '/intentions/cancel_job',
      '/intentions/create_collection',
      '/intentions/create_collection_orchestration',
      '/intentions/create_edge',
      '/intentions/create_mixer_channel',
      '/intentions/create_node',
      '/intentions/create_publication',
      '/intentions/create_variant',
      '/intentions/create_webhook',
      '/intentions/delete_edge',
      '/intentions/delete_orchestration',
      '/intentions/delete_webhook',
      '/intentions/end_live_session',
      '/intentions/end_webhook_token_grace',
      '/intentions/generate_tts',
      '/intentions/grant_access',
      '/intentions/pause_ab_test',
      '/intentions/publish_article',
      '/intentions/remove_variant',
      '/intentions/rename_webhook',
      '/intentions/render_mix',
      '/intentions/rerender',
      '/intentions/rerun_orchestration',
      '/intentions/resume_ab_test',
      '/intentions/retry_job',
      '/intentions/revoke_access',
      '/intentions/rotate_webhook_token',
      '/intentions/run_orchestration',
      '/intentions/set_channel_offset',
      '/intentions/set_channel_source',
      '/intentions/set_effect',
      '/intentions/set_gain',
      '/intentions/set_mixer_role',
      '/intentions/set_mute',
      '/intentions/set_orchestration_enabled',
      '/intentions/set_orchestration_secret',
      '/intentions/set_template',
      '/intentions/set_webhook_secret',
      '/intentions/start_live_session',
      '/intentions/tag_node',
      '/intentions/toggle_effect',
      '/intentions/transcribe',
      '/intentions/unpublish_article',
      '/intentions/unpublish_node',
      '/intentions/update_node',
      '/intentions/update_orchestration',
      '/intentions/update_publication',
      '/intentions/update_variant',
      '/intentions/validate_orchestration',
      '/me',
      '/media',
      '/media/{id}',
      '/media/{id}/link',
      '/media/{id}/transcription',
      '/metrics',
      '/nodes/{id}',
      '/openapi.json',
      '/pub/{slug}',
      '/pub/{slug}/arkiv',
      '/pub/{slug}/artikkel/{article_id}',
      '/pub/{slug}/feed.xml',
      '/pub/{slug}/kategori/{tag}',
      '/pub/{slug}/medier/{media_id}',
      '/pub/{slug}/om',
      '/pub/{slug}/sitemap.xml',
      '/pub/{slug}/sok',
      '/pub/{slug}/t/{article_id}',
      '/publications/{publication_id}/ab_results',
      '/query/nodes',
      '/robots.txt',
      '/studio',
      '/studio/callback',
      '/studio/login',
      '/studio/login/dev',
      '/studio/login/start',
      '/studio/logout',
      '/studio/orkestreringer',
      '/studio/orkestreringer/ny',
      '/studio/orkestreringer/{id}',
      '/studio/orkestreringer/{id}/aktiv',
      '/studio/orkestreringer/{id}/kjor',
      '/studio/orkestreringer/{id}/kjoringer/{run_id}',
      '/studio/orkestreringer/{id}/skript',
      '/studio/publikasjoner',
      '/studio/publikasjoner/{id}',
      '/studio/publikasjoner/{id}/artikler',
      '/studio/publikasjoner/{id}/artikler/ny',
      '/studio/publikasjoner/{id}/artikler/{node_id}',
      '/studio/publikasjoner/{id}/avpubliser',
      '/studio/publikasjoner/{id}/fortsett',
      '/studio/publikasjoner/{id}/innstillinger',
      '/studio/publikasjoner/{id}/pause',
      '/studio/publikasjoner/{id}/publiser',
      '/studio/publikasjoner/{id}/varianter',
      '/studio/publikasjoner/{id}/varianter/{edge_id}',
      '/studio/publikasjoner/{id}/varianter/{edge_id}/fjern',
      '/studio/publikasjoner/{id}/velg',
      '/studio/publikasjoner/{id}/vinner',
      '/studio/samlinger',
      '/studio/samlinger/{id}',
      '/studio/samlinger/{id}/fjern',
      '/studio/samlinger/{id}/tilgang',
      '/studio/system',
      '/studio/system/jobber/{id}/{action}',
      '/studio/system/regler',
      '/studio/webhooks',
      '/studio/webhooks/ny',
      '/studio/webhooks/{id}',
      '/studio/webhooks/{id}/avslutt-overgang',
      '/studio/webhooks/{id}/foresporsler',
      '/studio/webhooks/{id}/foresporsler/{request_id}',
      '/studio/webhooks/{id}/foresporsler/{request_id}/spill-av',
      '/studio/webhooks/{id}/gjengi',
      '/studio/webhooks/{id}/mal',
      '/studio/webhooks/{id}/navn',
      '/studio/webhooks/{id}/noder/{node_id}',
      '/studio/webhooks/{id}/noder/{node_id}/gjengi',
      '/studio/webhooks/{id}/nytt-token',
      '/studio/webhooks/{id}/signering',
      '/studio/webhooks/{id}/slett',
    ]);
  });

  it('marks JWT routes with the bearer scheme and leaves intake and /health public', () => {
    expect(doc.paths['/intentions/create_webhook']!.post!.security).toEqual([{ jwt: [] }]);
    expect(doc.paths['/api/webhook/{token}']!.post!.security).toEqual([]);
    expect(doc.paths['/health']!.get!.security).toEqual([]);
  });

  it('describes request bodies with the schemas the routes validate with', () => {
    const schema = doc.paths['/intentions/create_webhook']!.post!.requestBody.content['application/json'].schema;
    expect(schema).toMatchObject({
      type: 'object',
      required: ['collection_id'],
      additionalProperties: false,
      properties: { collection_id: { type: 'string', format: 'uuid' } },
    });
    const grant = doc.paths['/intentions/grant_access']!.post!.requestBody.content['application/json'].schema;
    expect(grant.properties.access.enum).toEqual(['reader', 'member', 'admin', 'owner']);
  });

  it('lists the error answers of each route as { error }', () => {
    const responses = doc.paths['/intentions/set_template']!.post!.responses;
    expect(Object.keys(responses).sort()).toEqual(['200', '400', '401', '403', '404', '500']);
  });
});

describe('OpenAPI operations', () => {
  it('every operation has an operationId, unique across the document', () => {
    const ids = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => (op as { operationId?: string }).operationId));
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect((doc.paths['/intentions/create_webhook']!.post as { operationId?: string }).operationId).toBe('postIntentionsCreateWebhook');
    expect((doc.paths['/nodes/{id}']!.get as { operationId?: string }).operationId).toBe('getNodesById');
  });

  it('the intake documents its form bodies next to JSON', () => {
    const content = doc.paths['/api/webhook/{token}']!.post!.requestBody.content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(content['application/x-www-form-urlencoded']!.schema).toMatchObject({ type: 'object', description: expect.stringContaining('payload') });
  });
});

type Operation = { parameters?: Array<{ name: string; in: string; required: boolean }>; responses: Record<string, { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }> };
const op = (path: string, method = 'get') => doc.paths[path]![method] as unknown as Operation;
const mediaTypes = (path: string, status: string, method = 'get') => Object.keys(op(path, method).responses[status]!.content ?? {});

describe('OpenAPI media types and path parameters', () => {
  it('every operation declares each {name} of its path as a required path parameter', () => {
    for (const [path, methods] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const method of Object.keys(methods)) {
        const declared = (op(path, method).parameters ?? []).filter((p) => p.in === 'path' && p.required).map((p) => p.name);
        expect([method, path, declared]).toEqual([method, path, names]);
      }
    }
  });

  it('published pages are text/html, the feed application/rss+xml, the sitemap application/xml', () => {
    expect(mediaTypes('/pub/{slug}', '200')).toEqual(['text/html']);
    expect(mediaTypes('/pub/{slug}/artikkel/{article_id}', '200')).toEqual(['text/html']);
    expect(mediaTypes('/pub/{slug}/feed.xml', '200')).toEqual(['application/rss+xml']);
    expect(mediaTypes('/pub/{slug}/sitemap.xml', '200')).toEqual(['application/xml']);
    // Their failures are HTML pages; a failure of the service itself is still { error }.
    expect(mediaTypes('/pub/{slug}/sok', '429')).toEqual(['text/html']);
    expect(mediaTypes('/pub/{slug}', '500')).toEqual(['application/json']);
  });

  it('a media file is documented as bytes of its kind (audio, image, video, text), never JSON', () => {
    for (const path of ['/media/{id}', '/pub/{slug}/medier/{media_id}']) {
      expect(mediaTypes(path, '200')).toEqual(['audio/*', 'image/*', 'video/*', 'text/*']);
      expect(op(path).responses['200']!.content!['audio/*']!.schema).toEqual({ type: 'string', format: 'binary' });
    }
  });

  it('an upload is documented as bytes (or a multipart form), not as a JSON string', () => {
    const content = doc.paths['/media']!.post!.requestBody.content;
    expect(Object.keys(content)).toEqual(['application/octet-stream', 'multipart/form-data']);
    expect(content['application/octet-stream']!.schema).toMatchObject({ type: 'string', format: 'binary' });
    expect(content['multipart/form-data']!.schema).toMatchObject({ properties: { file: { type: 'string', format: 'binary' } } });
  });

  it('console pages are text/html, their errors HTML pages, and a form that redirects has no body but a Location', () => {
    expect(mediaTypes('/studio/webhooks/{id}', '200')).toEqual(['text/html']);
    expect(mediaTypes('/studio/webhooks/{id}', '403')).toEqual(['text/html']);
    expect(mediaTypes('/studio/webhooks/{id}', '500')).toEqual(['text/html']);
    const redirect = op('/studio/webhooks/{id}/mal', 'post').responses['303']!;
    expect(redirect.content).toBeUndefined();
    expect(Object.keys(redirect.headers!)).toEqual(['Location']);
  });

  it('GET /admin/webhooks declares its page as the other lists do (limit, at most 200; cursor) and the Link header of a next page', () => {
    const list = op('/admin/webhooks');
    expect(list.parameters).toEqual([
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200, default: 200 } },
      { name: 'cursor', in: 'query', required: false, schema: expect.objectContaining({ type: 'string', format: 'uuid' }) },
    ]);
    expect(mediaTypes('/admin/webhooks', '200')).toEqual(['application/json']);
    expect(Object.keys(list.responses['200']!.headers!)).toEqual(['Link']);
  });

  it('/metrics answers JSON or Prometheus text; JSON routes stay application/json', () => {
    expect(mediaTypes('/metrics', '200')).toEqual(['application/json', 'text/plain']);
    expect(mediaTypes('/nodes/{id}', '200')).toEqual(['application/json']);
  });
});

describe('the route registry', () => {
  const spec = { method: 'get' as const, summary: 's', auth: 'public' as const, response: { status: 200, schema: z.string() }, errors: [] };

  it('refuses params that are not in the path, so a typo cannot validate nothing', () => {
    expect(() => new RouteRegistry().describe({ ...spec, path: '/x/{id}', params: z.object({ idd: z.uuid() }) })).toThrow('params idd are not in the path');
  });

  it('route() answers JSON only: a route declaring another media type must describe() itself', () => {
    const declared = { ...spec, path: '/x', response: { ...spec.response, contentType: 'text/html' } };
    expect(() => new RouteRegistry().route(express(), declared, (_req, _res, next) => next(), () => Promise.resolve(''))).toThrow('route() answers JSON only');
  });

  it('a route sets only the headers its response declares, and the document lists them', async () => {
    const app = express();
    const registry = new RouteRegistry();
    const pass: express.RequestHandler = (_req, _res, next) => next();
    const declared = { ...spec, path: '/x', response: { ...spec.response, headers: { Link: 'the next page' } } };
    registry.route(app, declared, pass, ({ setHeader }) => (setHeader('Link', '</x?cursor=1>; rel="next"'), Promise.resolve('x')));
    registry.route(app, { ...spec, path: '/y' }, pass, ({ setHeader }) => (setHeader('Link', '</y?cursor=1>; rel="next"'), Promise.resolve('y')));
    expect((await request(app).get('/x')).headers.link).toBe('</x?cursor=1>; rel="next"');
    const undeclared = await request(app).get('/y');
    expect([undeclared.status, undeclared.headers.link]).toEqual([500, undefined]);
    const paths = openApiDocument(registry.routes, { version: '0', baseUrl: 'http://inntak.test' }).paths as Record<string, Record<string, Operation>>;
    expect(paths['/x']!.get!.responses['200']!.headers).toEqual({ Link: { description: 'the next page', schema: { type: 'string' } } });
    expect(paths['/y']!.get!.responses['200']!.headers).toBeUndefined();
  });
});

describe('GET /docs', () => {
  it('is a readable API reference (Swagger UI) served from this server only, reading /openapi.json', async () => {
    const page = await request(ctx.app()).get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    // Nothing is fetched from elsewhere: every asset is a path on this server, and each answers.
    expect(page.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toEqual(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js']);
    for (const asset of assets) {
      const res = await request(ctx.app()).get(asset);
      expect([asset, res.status]).toEqual([asset, 200]);
    }
    const init = await request(ctx.app()).get('/docs/init.js');
    expect(init.text).toContain("url: '/openapi.json'");
    // Swagger UI's default validator badge would send the document to validator.swagger.io.
    expect(init.text).toContain('validatorUrl: null');
  });

  it('an asset that does not exist answers the usual JSON 404', async () => {
    const res = await request(ctx.app()).get('/docs/assets/nope.js');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Finnes ikke' });
  });
});
