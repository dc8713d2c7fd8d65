import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import request from 'supertest';
import type { Express } from 'express';
import type { z } from 'zod';
import { registryOf, type RouteSpec } from './route-registry.js';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';

// Issue 22, finding 13: PostgreSQL refuses NUL and lone surrogates in text and jsonb, and a
// route that passed one through answered 500. This walks every route the registry declares
// with a JSON body (so a route added later is covered without touching this file), builds a
// body its schema accepts, and posts it with one string field at a time holding NUL or a lone
// surrogate. The answer is a 4xx with an error text, never a 5xx; a 2xx only from the few
// routes that store nothing they are given (NOT_STORED) or clean it by rule (the intake).
// A new route whose body this cannot build (an id of a kind it does not know, a pattern none
// of STRING_CANDIDATES fits) fails the first test: add a value for the field to `samples`.

/** Routes that may answer 2xx to such text: they store nothing of it, or replace it by rule. */
const NOT_STORED: Record<string, string> = {
  'POST /admin/webhooks/templates/{id}/preview': 'renders a payload and returns it; stores nothing',
  'POST /intentions/validate_orchestration': 'checks a script and answers; stores nothing',
  'POST /api/webhook/{token}': 'the intake replaces NUL and lone surrogates in payloads (docs/deliveries.md)',
};

/** Where one string sits in a body: the path to it, and whether it is a value or a record's key. */
interface StringSlot {
  path: Array<string | number>;
  key: boolean;
}

const BAD_PIECES = ['\u0000', '\ud800', '\udbff', '\udc00', '\udfff'];
const FIXED_BAD = ['\u0000', 'tekst\u0000', '\ud800', 'a\udfffb', '\udc00\ud800'];

/** Makes free text unique per request. */
let unique = 0;
let ctx: TestContext;
let app: Express;
let admin: string;
/** Values by field name, for fields whose valid values a schema cannot tell (ids of real rows). */
let samples: Record<string, unknown>;

beforeAll(async () => {
  ctx = await setupTestContext();
  app = ctx.app();
  const owner = await ctx.ownerAuthorization();
  // A system administrator: every route's checks pass, so validation and the write are reached.
  admin = (await ctx.addPerson('string-fields-admin', { admin: true })).authorization;
  const post = async (path: string, body: object) => {
    const res = await request(app).post(path).set('Authorization', owner).send(body);
    expect(res.status).toBeLessThan(300);
    return res.body as Record<string, string>;
  };
  const webhook = await ctx.addWebhook('forge-push');
  const node = await post('/intentions/create_node', { node_kind: 'content', title: 'artikkel', collection_id: ctx.collectionId });
  const person = await ctx.addPerson('string-fields-subject');
  const publication = await post('/intentions/create_publication', { title: 'Avisa', slug: 'string-fields-avisa' });
  const published = await post('/intentions/publish_article', { publication_id: publication.id!, node_id: node.id! });
  // A mixer's room is a communication node (issue 28).
  const room = await post('/intentions/create_node', { node_kind: 'communication', title: 'studio', collection_id: ctx.collectionId });
  const channel = await post('/intentions/create_mixer_channel', { room_id: room.id!, label: 'kanal' });
  // Uuid fields by name; a field named otherwise gets the collection.
  samples = {
    webhook_id: webhook.id,
    node_id: node.id,
    article_id: node.id,
    object_id: node.id,
    source_id: node.id,
    collection_id: ctx.collectionId,
    target_id: ctx.collectionId,
    room_id: room.id,
    publication_id: publication.id,
    subject_id: person.id,
    edge_id: published.edge_id,
    channel_id: channel.id,
    token: webhook.token,
    template_id: 'forge-push',
    // The template preview's path parameter.
    id: 'forge-push',
    // Domains are unique across publications: a fresh one each time.
    domains: () => `d${++unique}.string-fields.example`,
  };
});
afterAll(() => ctx.close());

describe('NUL and lone surrogates in any string field of any JSON route (issue 22, finding 13)', () => {
  it('the registry declares the routes this walks (with bodies, including the ones the issue named)', () => {
    const paths = routesWithBodies().map((r) => r.path);
    expect(paths).toEqual(
      expect.arrayContaining(['/intentions/create_publication', '/intentions/create_variant', '/intentions/create_mixer_channel', '/intentions/set_webhook_secret']),
    );
    // Every body this test builds passes its route's schema, so what is refused is the text.
    const unbuildable = routesWithBodies().filter((route) => !route.body!.safeParse(sampleBody(route).body).success);
    expect(unbuildable.map((r) => r.path)).toEqual([]);
  });

  it('answers 4xx with an error text, never 5xx, for every route and string field', async () => {
    const failures: string[] = [];
    for (const route of routesWithBodies()) {
      const { slots } = sampleBody(route);
      const url = fillPath(route);
      const label = `${route.method.toUpperCase()} ${route.path}`;
      for (const [index, first] of slots.entries()) {
        const answer = async (bad: string) => {
          // A fresh body each time: free text is made unique, so a unique field (a slug) taken
          // by an earlier request cannot make a 409 that hides what the text would do. The same
          // schema walks in the same order, so the slot has the same index.
          const fresh = sampleBody(route);
          const { body } = fresh;
          const slot = fresh.slots[index] ?? first;
          const res = await request(app)[route.method](url).set('Authorization', admin).set('Content-Type', 'application/json').send(JSON.stringify(withString(body, slot, bad)));
          const refused = res.status >= 400 && res.status < 500 && typeof res.body?.error === 'string';
          const stored = res.status < 300 && NOT_STORED[label] !== undefined;
          if (!refused && !stored) failures.push(`${label} ${slot.key ? 'key of ' : ''}${slot.path.join('.')} = ${JSON.stringify(bad)}: ${res.status} ${JSON.stringify(res.body)}`);
          return refused || stored;
        };
        for (const bad of FIXED_BAD) await answer(bad);
        await fc.assert(
          fc.asyncProperty(fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...BAD_PIECES), fc.string({ maxLength: 8 })), async ([before, piece, after]) => {
            await answer(before + piece + after);
          }),
          { numRuns: 4 },
        );
      }
    }
    expect(failures).toEqual([]);
  });

  it.each([
    ['/intentions/create_publication', { title: 'Avis\u0000', slug: 'nul-avis' }, 'title'],
    ['/intentions/create_publication', { title: 'Avis', slug: 'surrogat-avis', about: 'om \ud800' }, 'about'],
    ['/intentions/create_mixer_channel', { room_id: 'ROOM', label: 'kanal\u0000' }, 'label'],
    ['/intentions/set_webhook_secret', { webhook_id: 'WEBHOOK', scheme: 'github', secret: 'hemmelig\udc00' }, 'secret'],
  ])('%s with a bad %s answers 400 naming the field', async (path, body, field) => {
    const filled = JSON.parse(JSON.stringify(body).replace('"ROOM"', JSON.stringify(samples.room_id)).replace('"WEBHOOK"', JSON.stringify(samples.webhook_id))) as object;
    const res = await request(app).post(path).set('Authorization', admin).set('Content-Type', 'application/json').send(JSON.stringify(filled));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(new RegExp(`^Ugyldig forespørsel: ${field}: `));
  });

  it('create_variant with a bad title or teaser answers 400', async () => {
    const base = { publication_id: samples.publication_id, article_id: samples.article_id, variant_type: 'tittel' };
    for (const body of [
      { ...base, title: 'Variant\u0000' },
      { ...base, title: 'Variant', teaser: '\ud800' },
    ]) {
      const res = await request(app).post('/intentions/create_variant').set('Authorization', admin).set('Content-Type', 'application/json').send(JSON.stringify(body));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^Ugyldig forespørsel: (title|teaser): /);
    }
  });
});

function routesWithBodies(): RouteSpec[] {
  return registryOf(app).routes.filter((route) => route.body !== undefined && route.method !== 'get');
}

function fillPath(route: RouteSpec): string {
  return route.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const schema = route.params?.shape[name] as z.ZodType | undefined;
    return encodeURIComponent(String(schema ? sampleString(schema, name) : samples.collection_id));
  });
}

/** A body the route's schema accepts, and where each of its strings sits. */
function sampleBody(route: RouteSpec): { body: unknown; slots: StringSlot[] } {
  const slots: StringSlot[] = [];
  const body = sample(route.body!, [], slots, '');
  return { body, slots };
}

type Def = { type: string } & Record<string, unknown>;
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** A value of the schema (every optional field filled in, so it is tested too). */
function sample(schema: z.ZodType, path: Array<string | number>, slots: StringSlot[], name: string): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(def.shape as Record<string, z.ZodType>)) out[key] = sample(field, [...path, key], slots, key);
      return out;
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return sample(def.innerType as z.ZodType, path, slots, name);
    case 'pipe':
      return sample(def.in as z.ZodType, path, slots, name);
    case 'lazy':
      return sample((def.getter as () => z.ZodType)(), path, slots, name);
    case 'array':
      return [sample(def.element as z.ZodType, [...path, 0], slots, name)];
    case 'tuple':
      return (def.items as z.ZodType[]).map((item, i) => sample(item, [...path, i], slots, name));
    case 'record': {
      const key = String(sampleString(def.keyType as z.ZodType, 'key') ?? 'felt');
      slots.push({ path: [...path, key], key: true });
      return { [key]: sample(def.valueType as z.ZodType, [...path, key], slots, key) };
    }
    case 'union': {
      const options = def.options as z.ZodType[];
      const fits = options.find((option) => option.safeParse(sample(option, path, [], name)).success) ?? options[0]!;
      return sample(fits, path, slots, name);
    }
    case 'string':
      slots.push({ path, key: false });
      return sampleString(schema, name);
    case 'unknown':
    case 'any':
      // JSON of any shape (metadata values, payloads): a string in it is stored as well.
      slots.push({ path, key: false });
      return 'tekst';
    case 'number':
    case 'int':
      // -16: a loudness target (render_mix, −36 … −6 LUFS).
      return [1, 0, 10, 100, -1, 0.5, -16].find((n) => schema.safeParse(n).success) ?? 1;
    case 'bigint':
      return 1;
    case 'boolean':
      return true;
    case 'enum':
      return Object.values(def.entries as Record<string, string>)[0];
    case 'literal':
      return (def.values as unknown[])[0];
    case 'null':
      return null;
    default:
      return undefined;
  }
}

const STRING_CANDIDATES = () => [`tekst-${++unique}`, 'tekst', 'forge-push', 'nb', 'abc', 'a', 'x'.repeat(40), 'string-fields-ny', '2026-01-01T00:00:00Z', 'https://example.com/', 'a@example.com', '1'];

function sampleString(schema: z.ZodType, name: string): unknown {
  const sampled = samples?.[name];
  const named = typeof sampled === 'function' ? (sampled as () => unknown)() : sampled;
  if (named !== undefined && schema.safeParse(named).success) return named;
  const found = STRING_CANDIDATES().find((candidate) => schema.safeParse(candidate).success);
  return found ?? (schema.safeParse(samples?.collection_id).success ? samples.collection_id : 'tekst');
}

/** The body with one string replaced: a value, or a record's key (its value kept). */
function withString(body: unknown, slot: StringSlot, bad: string): unknown {
  const copy = structuredClone(body);
  const parentPath = slot.path.slice(0, -1);
  const last = slot.path.at(-1);
  if (last === undefined) return bad;
  let parent = copy as Record<string | number, unknown>;
  for (const step of parentPath) parent = parent[step] as Record<string | number, unknown>;
  if (slot.key) {
    const value = parent[last];
    delete parent[last];
    parent[bad] = value;
  } else {
    parent[last] = bad;
  }
  return copy;
}
