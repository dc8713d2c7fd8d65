import type { Express } from 'express';
import { z } from 'zod';
import type { RouteRegistry, RouteSpec } from './route-registry.js';

const ErrorBody = z.object({ error: z.string() }).meta({ description: 'Every failure: one text field.' });

/** GET /openapi.json: the OpenAPI 3.1 document of every route in the registry. Public. */
export function installOpenApi(app: Express, registry: RouteRegistry, info: { version: string; baseUrl: string }): void {
  registry.describe({
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    auth: 'public',
    response: { status: 200, schema: z.record(z.string(), z.unknown()) },
    errors: [],
  });
  app.get('/openapi.json', (_req, res) => {
    res.status(200).json(openApiDocument(registry.routes, info));
  });
}

export function openApiDocument(routes: readonly RouteSpec[], info: { version: string; baseUrl: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Inntak', version: info.version, description: 'Webhooks into content nodes in a graph. Errors are `{ "error": text }`.' },
    servers: [{ url: info.baseUrl }],
    paths,
    components: {
      securitySchemes: {
        jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A token from the configured OpenID issuer; its subject must be a known identity.' },
      },
    },
  };
}

function operation(route: RouteSpec): Record<string, unknown> {
  const parameters = [
    ...parametersOf(route.params, 'path'),
    ...parametersOf(route.query, 'query'),
  ];
  const responses: Record<string, unknown> = {
    [route.response.status]: {
      description: route.response.description ?? 'OK',
      content: { 'application/json': { schema: jsonSchema(route.response.schema, 'output') } },
    },
  };
  for (const status of [...route.errors, 500]) {
    responses[status] = { description: 'Error', content: { 'application/json': { schema: jsonSchema(ErrorBody, 'output') } } };
  }
  return {
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.tags ? { tags: route.tags } : {}),
    security: route.auth === 'jwt' ? [{ jwt: [] }] : [],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: !route.body.safeParse(undefined).success, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } }
      : {}),
    responses,
  };
}

function parametersOf(schema: z.ZodObject | undefined, where: 'path' | 'query'): unknown[] {
  if (!schema) return [];
  return Object.entries(schema.shape).map(([name, field]) => ({
    name,
    in: where,
    required: where === 'path' || !(field as z.ZodType).safeParse(undefined).success,
    schema: jsonSchema(field as z.ZodType, 'input'),
  }));
}

/** JSON Schema 2020-12, the dialect OpenAPI 3.1 uses, without the per-schema `$schema` line. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
  return rest;
}
