import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';

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
      '/admin/orchestrations/{id}/log',
      '/admin/resources',
      '/admin/resources/disk',
      '/admin/resources/update_rule',
      '/admin/webhooks',
      '/admin/webhooks/templates',
      '/admin/webhooks/templates/{id}/preview',
      '/api/webhook/{token}',
      '/health',
      '/health/ready',
      '/intentions/ab_override',
      '/intentions/cancel_job',
      '/intentions/create_collection',
      '/intentions/create_edge',
      '/intentions/create_node',
      '/intentions/create_publication',
      '/intentions/create_variant',
      '/intentions/create_webhook',
      '/intentions/delete_edge',
      '/intentions/delete_webhook',
      '/intentions/grant_access',
      '/intentions/publish_article',
      '/intentions/retry_job',
      '/intentions/revoke_access',
      '/intentions/rotate_webhook_token',
      '/intentions/set_template',
      '/intentions/tag_node',
      '/intentions/unpublish_article',
      '/intentions/validate_orchestration',
      '/me',
      '/metrics',
      '/nodes/{id}',
      '/openapi.json',
      '/pub/{slug}',
      '/pub/{slug}/arkiv',
      '/pub/{slug}/artikkel/{article_id}',
      '/pub/{slug}/kategori/{tag}',
      '/pub/{slug}/om',
      '/pub/{slug}/sok',
      '/pub/{slug}/t/{article_id}',
      '/query/nodes',
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
