import { Writable } from 'node:stream';
import winston from 'winston';
import type { Express } from 'express';
import { openDatabase, type DatabaseHandle } from '@inntak/postgres';
import { createTestDatabase, type TestDatabase, storesOn } from '@inntak/postgres/testing';
import { createApp, type AppDeps } from '../app.js';
import { postgresAppDeps } from '../api-server.js';
import { createLogger } from '../logger.js';
import { OidcTokenVerifier } from '../oidc-verifier.js';
import { startTestIssuer, type TestIssuer } from '@inntak/test-support';
import { createCollection, createPerson, OPERATOR } from '@inntak/access';
import { createWebhook } from '@inntak/intake';

export interface LogEntry {
  level: string;
  message: string;
  [key: string]: unknown;
}

/** A real winston logger whose JSON lines are kept for assertions. */
export function captureLogger(): { logger: winston.Logger; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      entries.push(JSON.parse(String(chunk)) as LogEntry);
      callback();
    },
  });
  return { logger: createLogger('debug', [new winston.transports.Stream({ stream })]), entries };
}

export interface TestContext {
  testDb: TestDatabase;
  database: DatabaseHandle;
  logger: winston.Logger;
  logs: LogEntry[];
  issuer: TestIssuer;
  /** The person who owns the collection; their subject is OWNER_SUBJECT. */
  ownerId: string;
  collectionId: string;
  /** A valid token for a subject (known or not). */
  tokenFor(subject: string): Promise<string>;
  close(): Promise<void>;
  app(overrides?: Partial<AppDeps>): Express;
  addWebhook(templateId?: string | null): Promise<{ id: string; token: string; edgeId: string }>;
  /** A known person and the Authorization header that names them. */
  addPerson(subject: string, options?: { admin?: boolean }): Promise<{ id: string; authorization: string }>;
  /** The owner's Authorization header. */
  ownerAuthorization(): Promise<string>;
}

export const OWNER_SUBJECT = 'owner-subject';
export const BASE_URL = 'http://inntak.test';

/**
 * A fresh database with an owner, a collection, a real local OpenID issuer and an app factory
 * wired to real adapters.
 */
export async function setupTestContext(): Promise<TestContext> {
  const testDb = await createTestDatabase();
  const { logger, entries } = captureLogger();
  const database = openDatabase({ connectionString: testDb.url, logger });
  const issuer = await startTestIssuer();
  const owner = await createPerson(storesOn(database.db).graph, { subject: OWNER_SUBJECT, name: 'Eier' });
  const collection = await createCollection(storesOn(database.db).graph, { title: 'Innboks', ownerId: owner.id });
  return {
    testDb,
    database,
    logger,
    logs: entries,
    issuer,
    tokenFor: (subject) => issuer.token(subject),
    ownerId: owner.id,
    collectionId: collection.id,
    async close() {
      await database.close();
      await issuer.close();
      await testDb.drop();
    },
    app(overrides = {}) {
      return createApp({
        ...postgresAppDeps({
          logger,
          database,
          verifier: new OidcTokenVerifier(issuer.issuer, issuer.audience, logger),
          baseUrl: BASE_URL,
          bodyLimitBytes: 25 * 1024 * 1024,
          slowRequestMs: 200,
          liveRoomCacheMs: 0,
        }),
        checkResponses: true,
        ...overrides,
      });
    },
    async addPerson(subject, options = {}) {
      const { id } = await createPerson(storesOn(database.db).graph, { subject, admin: options.admin });
      return { id, authorization: `Bearer ${await issuer.token(subject)}` };
    },
    async ownerAuthorization() {
      return `Bearer ${await issuer.token(OWNER_SUBJECT)}`;
    },
    addWebhook(templateId = null) {
      return createWebhook(storesOn(database.db).webhookAdmin, OPERATOR, { collectionId: collection.id, templateId, createdBy: owner.id });
    },
  };
}
