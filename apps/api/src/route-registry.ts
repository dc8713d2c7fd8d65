import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { AppError, jsonNestsDeeperThan } from '@inntak/core';
import type { Caller } from '@inntak/access';
import { callerOf } from './auth.js';

// Validation messages in Norwegian, like the rest of the error texts.
z.config(z.locales.no());

/**
 * The REST surface, declared once. Each route names its method, OpenAPI-style path, auth, and
 * the zod schemas of its path parameters, query, body and response, and the response's media
 * type when it is not JSON. `route()` installs a JSON route with its validation; `describe()`
 * records a route installed by its own code (intake reads raw bytes, pages answer HTML, media
 * files their bytes; /health and /me predate the registry). `openApiDocument()` turns the same
 * declarations into /openapi.json, so the document cannot drift from what the routes accept.
 *
 * Adding a route from another module (e.g. /query/nodes, /metrics):
 *   registry.route(app, { method: 'get', path: '/query/nodes', auth: 'jwt', query, response, ... },
 *     async ({ query, caller }) => ...);
 * and call that module's installX from createApp before installOpenApi.
 */
export type RouteAuth = 'public' | 'jwt' | 'webhook_token';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnyObject = z.ZodObject;

export interface RouteSpec<
  Params extends AnyObject = AnyObject,
  Query extends AnyObject = AnyObject,
  Body extends z.ZodType = z.ZodType,
  Out extends z.ZodType = z.ZodType,
> {
  method: Method;
  /** OpenAPI style: `/admin/webhooks/templates/{id}/preview`; each `{name}` is documented as a path parameter, typed by `params` if it names it. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  auth: RouteAuth;
  params?: Params;
  query?: Query;
  body?: Body;
  /** The body's media type when it is not JSON (an upload's bytes); only `describe()` routes have one. */
  bodyContentType?: string;
  /** Media types the body may also come as (intake's forms, an upload's multipart), for the OpenAPI document. */
  bodyAlternatives?: Record<string, { schema: z.ZodType; description?: string }>;
  /** OpenAPI operationId; absent: made from method and path (`postIntentionsCreateWebhook`). */
  operationId?: string;
  response: RouteResponse<Out>;
  /** Statuses the route may answer with `{ "error": text }`, besides 500. */
  errors: number[];
  /**
   * Statuses answered with an HTML page instead of `{ "error": text }` (the console's and the
   * published pages' failures are pages); 500 among them replaces the JSON 500.
   */
  errorPages?: number[];
}

export interface RouteResponse<Out extends z.ZodType = z.ZodType> {
  status: number;
  /** The body's schema; absent from the document for a redirect (3xx), which has only `Location`. */
  schema: Out;
  description?: string;
  /**
   * The media type(s) of a body that is not JSON (`text/html`, `application/rss+xml`, a media
   * file's `audio/*`, …), so generated clients do not parse a page as JSON. Only `describe()`
   * routes have one: `route()` always answers JSON.
   */
  contentType?: string | readonly string[];
  /** Other media types the same answer may come as on request, each with its schema (/metrics: Prometheus text). */
  alternatives?: Record<string, z.ZodType>;
  /** Headers the answer may carry (`Link` to a bare list's next page), each with its description; only these may be set. */
  headers?: Record<string, string>;
}

export interface RouteInput<Params, Query, Body> {
  params: Params;
  query: Query;
  body: Body;
  /** Set on `jwt` routes. */
  caller: Caller;
  req: Request;
  /** Sets a header of the answer; it must be one the route's `response.headers` declares. */
  setHeader: (name: string, value: string) => void;
}

export class RouteRegistry {
  readonly routes: RouteSpec[] = [];

  /**
   * @param checkResponses parse every answer with its response schema before sending it (tests
   *   turn this on, so a handler that drifts from its documented shape fails loudly).
   */
  constructor(private readonly options: { checkResponses?: boolean } = {}) {}

  /** Records a route whose handler is installed elsewhere. */
  describe(spec: RouteSpec): void {
    this.routes.push(checkedSpec(spec));
  }

  /** Installs a route: auth, JSON body, validation of params/query/body, JSON answer. */
  route<Params extends AnyObject, Query extends AnyObject, Body extends z.ZodType, Out extends z.ZodType>(
    app: Express,
    spec: RouteSpec<Params, Query, Body, Out>,
    auth: RequestHandler,
    handler: (input: RouteInput<z.infer<Params>, z.infer<Query>, z.infer<Body>>) => Promise<z.input<Out>>,
  ): void {
    if (spec.bodyContentType !== undefined || spec.response.contentType !== undefined || spec.response.alternatives) throw new Error(`${spec.method} ${spec.path}: route() answers JSON only; describe() a route that answers other media types`);
    this.routes.push(checkedSpec(spec as unknown as RouteSpec));
    const middleware: RequestHandler[] = [];
    if (spec.auth === 'jwt') middleware.push(auth);
    if (spec.body) middleware.push(express.json({ limit: '1mb', strict: false, verify: refuseDeepJson }));
    app[spec.method](expressPath(spec.path), ...middleware, async (req: Request, res: Response) => {
      const input = {
        params: parseInput(spec.params, req.params, 'path'),
        query: parseInput(spec.query, req.query, 'query'),
        body: parseInput(spec.body, req.body ?? {}, 'body'),
        caller: spec.auth === 'jwt' ? callerOf(res) : (undefined as unknown as Caller),
        req,
        setHeader: (name: string, value: string) => {
          if (!Object.hasOwn(spec.response.headers ?? {}, name)) throw new Error(`${spec.method} ${spec.path}: header ${name} is not in response.headers`);
          res.setHeader(name, value);
        },
      } as RouteInput<z.infer<Params>, z.infer<Query>, z.infer<Body>>;
      const output = await handler(input);
      if (this.options.checkResponses) spec.response.schema.parse(output);
      res.status(spec.response.status).json(output);
    });
  }
}

/** The `{name}`s of an OpenAPI-style path, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/**
 * A `params` schema may only name parameters its path has (a typo would validate nothing);
 * path parameters it leaves out are documented as text (openapi.ts).
 */
function checkedSpec(spec: RouteSpec): RouteSpec {
  const names = pathParameterNames(spec.path);
  const unknown = Object.keys(spec.params?.shape ?? {}).filter((name) => !names.includes(name));
  if (unknown.length) throw new Error(`${spec.method} ${spec.path}: params ${unknown.join(', ')} are not in the path`);
  return spec;
}

/** The registry an app built by createApp declared its routes in. */
export function registryOf(app: Express): RouteRegistry {
  const registry: unknown = app.locals.routeRegistry;
  if (!(registry instanceof RouteRegistry)) throw new Error('app has no route registry (not built by createApp)');
  return registry;
}

/** Validates request input with a zod schema; a failure is 400 naming the first bad field. */
export function parseInput<S extends z.ZodType>(schema: S | undefined, value: unknown, where: string): z.output<S> {
  if (!schema) return {} as z.output<S>;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new AppError('invalid_input', { detail: describeIssue(result.error.issues[0]!, where) });
}

/** `Ugyldig forespørsel: <field>: <problem>` names the first bad field (or the whole body). */
function describeIssue(issue: z.core.$ZodIssue, where: string): string {
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const path = [...issue.path, ...keys.slice(0, 1)].map(String).join('.');
  return `${path || where}: ${issue.message}`;
}

/** Every walk over a body recurses: deeper than JSON_MAX_DEPTH is refused before parsing (400). */
function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer): void {
  if (jsonNestsDeeperThan(body)) throw new AppError('json_too_deep');
}

function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
