import request from 'supertest';
import type { TestContext } from './helpers.js';

type Person = { id: string; authorization: string };

/**
 * A member ('medlem'), a reader ('leser') and a stranger ('fremmed') of the test collection: the
 * first two granted their access by the owner through the API.
 */
export async function addCollectionPeople(ctx: TestContext, app: Parameters<typeof request>[0], owner: string): Promise<{ member: Person; reader: Person; stranger: Person }> {
  const member = await ctx.addPerson('medlem');
  const reader = await ctx.addPerson('leser');
  const stranger = await ctx.addPerson('fremmed');
  for (const [person, access] of [
    [member, 'member'],
    [reader, 'reader'],
  ] as const) {
    await request(app).post('/intentions/grant_access').set('Authorization', owner).send({ subject_id: person.id, object_id: ctx.collectionId, access }).expect(200);
  }
  return { member, reader, stranger };
}
