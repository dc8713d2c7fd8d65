import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { type Express } from 'express';
import { z } from 'zod';
import { nameRoute } from '../request-logging.js';
import { pathParameterNames, type RouteRegistry, type RouteSpec } from '../route-registry.js';

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
  installDocs(app);
}

// GET /docs: Swagger UI (the swagger-ui-dist package, served from node_modules: no CDN, works
// offline) reading /openapi.json. validatorUrl null: its default sends the document to
// validator.swagger.io for a badge.
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Inntak API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });\n`;

/**
 * The reference shares an origin with the console and the published pages (issue 35, finding 8),
 * so it runs only its own scripts, from this origin, and cannot be framed or sniffed. Swagger UI
 * sets inline styles and draws its icons from data: URLs; it fetches /openapi.json, and "Try it
 * out" calls this API (connect-src 'self'). Found attacking the merged result of issue 35.
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * What /docs/assets serves of swagger-ui-dist: the two files the page loads. The package also
 * holds pages that run scripts (a demo index.html loading petstore.swagger.io's document,
 * oauth2-redirect.html), source maps and its package.json; none of them is ours to serve.
 */
const DOCS_ASSETS: ReadonlySet<string> = new Set(['/swagger-ui.css', '/swagger-ui-bundle.js']);

function installDocs(app: Express): void {
  app.use('/docs', (_req, res, next) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  app.get('/docs', (_req, res) => {
    res.status(200).type('html').send(DOCS_PAGE);
  });
  app.get('/docs/init.js', (_req, res) => {
    res.status(200).type('js').send(DOCS_INIT);
  });
  // One label for every asset in metrics and logs (request-logging.ts, nameRoute): not one per file, not "unmatched".
  const serve = express.static(SWAGGER_UI_DIR, { index: false, maxAge: '1h' });
  app.use('/docs/assets', (req, res, next) => {
    nameRoute(res, '/docs/assets/*');
    // Anything else falls through to the usual JSON 404.
    if (DOCS_ASSETS.has(req.path)) serve(req, res, next);
    else next();
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
  const parameters = [...pathParameters(route), ...parametersOf(route.query, 'query')];
  const responses: Record<string, unknown> = { [route.response.status]: successResponse(route) };
  const pages = new Set(route.errorPages ?? []);
  for (const status of [...route.errors, ...pages, ...(pages.has(500) ? [] : [500])]) {
    responses[status] = pages.has(status) ? { description: 'Error (an HTML page)', content: { 'text/html': { schema: { type: 'string' } } } } : { description: 'Error', content: { 'application/json': { schema: jsonSchema(ErrorBody, 'output') } } };
  }
  return {
    operationId: route.operationId ?? operationId(route),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.tags ? { tags: route.tags } : {}),
    security: route.auth === 'jwt' ? [{ jwt: [] }] : [],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body ? { requestBody: requestBody(route, route.body) } : {}),
    responses,
  };
}

/** The success answer in its own media type(s); a redirect has no body, only where it points. */
function successResponse(route: RouteSpec): Record<string, unknown> {
  const { status, schema, description, contentType = 'application/json', alternatives = {}, headers = {} } = route.response;
  if (status >= 300 && status < 400) {
    return { description: description ?? 'Redirect', headers: { Location: { description: 'Where to go next', schema: { type: 'string' } } } };
  }
  const content: Record<string, unknown> = {};
  for (const mediaType of typeof contentType === 'string' ? [contentType] : contentType) content[mediaType] = { schema: jsonSchema(schema, 'output') };
  for (const [mediaType, alternative] of Object.entries(alternatives)) content[mediaType] = { schema: jsonSchema(alternative, 'output') };
  const documented = Object.fromEntries(Object.entries(headers).map(([name, about]) => [name, { description: about, schema: { type: 'string' } }]));
  return { description: description ?? 'OK', content, ...(Object.keys(documented).length ? { headers: documented } : {}) };
}

/**
 * Every `{name}` of the path, so no route can leave one out: with the schema its `params`
 * declare, else as text (the published pages and the console read theirs themselves).
 */
function pathParameters(route: RouteSpec): unknown[] {
  const declared: Record<string, unknown> = route.params?.shape ?? {};
  return pathParameterNames(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: declared[name] ? jsonSchema(declared[name] as z.ZodType, 'input') : { type: 'string' },
  }));
}

function requestBody(route: RouteSpec, body: z.ZodType): Record<string, unknown> {
  const content: Record<string, unknown> = { [route.bodyContentType ?? 'application/json']: { schema: jsonSchema(body, 'input') } };
  for (const [mediaType, alternative] of Object.entries(route.bodyAlternatives ?? {})) {
    content[mediaType] = { schema: { ...jsonSchema(alternative.schema, 'input'), ...(alternative.description ? { description: alternative.description } : {}) } };
  }
  return { required: !body.safeParse(undefined).success, content };
}

/**
 * `post /intentions/create_webhook` → `postIntentionsCreateWebhook`, `get /nodes/{id}` →
 * `getNodesById`: unique because method and path are, and stable for generated clients.
 */
export function operationId(route: Pick<RouteSpec, 'method' | 'path'>): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      return param ? ['by', ...param[1]!.split(/[_.-]/)] : segment.split(/[_.-]/);
    });
  return route.method + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

function parametersOf(schema: z.ZodObject | undefined, where: 'query'): unknown[] {
  if (!schema) return [];
  return Object.entries(schema.shape).map(([name, field]) => ({
    name,
    in: where,
    required: !(field as z.ZodType).safeParse(undefined).success,
    schema: jsonSchema(field as z.ZodType, 'input'),
  }));
}

/** JSON Schema 2020-12, the dialect OpenAPI 3.1 uses, without the per-schema `$schema` line. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
  return rest;
}
