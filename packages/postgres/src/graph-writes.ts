import { randomUUID } from 'node:crypto';
import { AppError, isUuid, uuidv7 } from '@inntak/core';
import type { Db } from './database.js';
import { propagateBelongsTo } from './access-propagation.js';

/**
 * Graph writes an operator makes from the CLI (and, later, the admin API). Each is one
 * transaction together with the access rows it implies.
 */

export async function createPerson(
  db: Db,
  input: { subject: string; issuer?: string; name?: string; admin?: boolean },
): Promise<{ id: string }> {
  return db.transaction().execute(async (trx) => {
    const id = uuidv7();
    await trx
      .insertInto('nodes')
      .values({ id, node_kind: 'person', title: input.name ?? null, content: null, metadata: '{}', created_by: null })
      .execute();
    await trx
      .insertInto('auth_identities')
      .values({ issuer: input.issuer ?? '', subject: input.subject, node_id: id })
      .execute();
    if (input.admin) await trx.insertInto('system_admins').values({ node_id: id }).execute();
    return { id };
  });
}

/** A collection with an `owner` edge from its owner, which grants the owner an `owner` row. */
export async function createCollection(db: Db, input: { title: string; ownerId: string }): Promise<{ id: string }> {
  return db.transaction().execute(async (trx) => {
    const id = uuidv7();
    await trx
      .insertInto('nodes')
      .values({ id, node_kind: 'collection', title: input.title, content: null, metadata: '{}', created_by: input.ownerId })
      .execute();
    const edgeId = uuidv7();
    await trx
      .insertInto('edges')
      .values({ id: edgeId, source_id: input.ownerId, target_id: id, edge_type: 'owner', metadata: '{}', created_by: input.ownerId })
      .execute();
    await trx
      .insertInto('node_access')
      .values({ subject_id: input.ownerId, object_id: id, access: 'owner', via_edge: edgeId })
      .execute();
    return { id };
  });
}

/**
 * A webhook node (secret token in its metadata) with its `belongs_to` edge to the collection;
 * the collection's access rows are copied to it like to any member.
 */
export async function createWebhook(
  db: Db,
  input: { collectionId: string; templateId?: string | null; title?: string | null; createdBy?: string | null },
): Promise<{ id: string; token: string; edgeId: string }> {
  return db.transaction().execute(async (trx) => {
    if (!isUuid(input.collectionId)) throw new AppError('invalid_input', { detail: 'collection_id must be a UUID' });
    const target = await trx.selectFrom('nodes').select('node_kind').where('id', '=', input.collectionId).executeTakeFirst();
    if (target?.node_kind !== 'collection') {
      throw new AppError('not_found', { detail: `collection ${input.collectionId} does not exist` });
    }
    const id = uuidv7();
    const token = randomUUID();
    const metadata: Record<string, unknown> = { token };
    if (input.templateId) metadata.template_id = input.templateId;
    await trx
      .insertInto('nodes')
      .values({
        id,
        node_kind: 'webhook',
        title: input.title ?? null,
        content: null,
        metadata: JSON.stringify(metadata),
        created_by: input.createdBy ?? null,
      })
      .execute();
    const edgeId = uuidv7();
    await trx
      .insertInto('edges')
      .values({
        id: edgeId,
        source_id: id,
        target_id: input.collectionId,
        edge_type: 'belongs_to',
        metadata: '{}',
        created_by: input.createdBy ?? null,
      })
      .execute();
    await propagateBelongsTo(trx, edgeId);
    return { id, token, edgeId };
  });
}
