import { describe, expect, it } from '@jest/globals';
import type { PublishingStore } from './ports.js';
import { createPublication } from './publications.js';

/** A store the refusals below must never reach: they are decided before anything is read or written. */
const untouched: PublishingStore = {
  transaction: () => Promise.reject(new Error('the store was asked')),
};
const person = { personId: '0190a5e0-0000-7000-8000-000000000001', isAdmin: false };

describe('create_publication refuses before the store is asked', () => {
  it('custom domains are a system administrator’s decision: 403 for anyone else', async () => {
    await expect(createPublication(untouched, person, { title: 'T', slug: 't', domains: ['t.example'], ownerId: person.personId })).rejects.toMatchObject({
      code: 'forbidden',
      detail: 'bare en systemadministrator kan legge til domener',
    });
  });

  it('a slug outside a–z, 0–9 and hyphen is 400', async () => {
    await expect(createPublication(untouched, person, { title: 'T', slug: 'Ø y', ownerId: person.personId })).rejects.toMatchObject({ code: 'invalid_input', detail: 'slug: bare a–z, 0–9 og bindestrek, 1–63 tegn' });
  });

  it('a bad domain from a system administrator is 400 naming it', async () => {
    const admin = { personId: null, isAdmin: true };
    await expect(createPublication(untouched, admin, { title: 'T', slug: 't', domains: ['not a domain'], ownerId: person.personId })).rejects.toMatchObject({
      code: 'invalid_input',
      detail: 'domains: ugyldig domenenavn "not a domain"',
    });
  });
});
