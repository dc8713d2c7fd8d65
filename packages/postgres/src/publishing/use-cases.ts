import { OPERATOR, type Actor } from '@inntak/access';
import * as ab from '@inntak/ab-testing';
import * as publishing from '@inntak/publishing';
import type { Db } from './trx.js';
import { PostgresAbResults, PostgresPublishingStore } from './publishing-store.js';

/*
 * The publishing use cases (packages/publishing, packages/ab-testing) over this adapter, with
 * the signatures the CLI and the adapter's tests call. Nothing is decided here.
 */

/** create_publication; the CLI (and tests) act as the operator, who may give custom domains. */
export function createPublication(db: Db, input: publishing.NewPublication, actor: Actor = OPERATOR): Promise<{ id: string }> {
  return publishing.createPublication(new PostgresPublishingStore(db), actor, input);
}

export function publishArticle(db: Db, actor: Actor, input: { publication_id: string; node_id: string }): Promise<{ edge_id: string }> {
  return publishing.publishArticle(new PostgresPublishingStore(db), actor, input);
}

export function createVariant(db: Db, actor: Actor, input: publishing.NewVariant): Promise<{ edge_id: string; ab_status: 'testing' | null }> {
  return publishing.createVariant(new PostgresPublishingStore(db), actor, input);
}

export function abOverride(db: Db, actor: Actor, input: { edge_id: string }): Promise<{ edge_id: string; ab_status: 'winner'; retired: string[] }> {
  return publishing.abOverride(new PostgresPublishingStore(db), actor, input);
}

export function runAbEvaluation(db: Db): Promise<ab.TestReport[]> {
  return ab.runAbEvaluation(new PostgresPublishingStore(db));
}

export function abResults(db: Db, actor: Actor, publicationId: string): ReturnType<typeof ab.abResults> {
  return ab.abResults(new PostgresAbResults(db), actor, publicationId);
}
