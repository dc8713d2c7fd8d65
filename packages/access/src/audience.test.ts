import { describe, expect, it } from '@jest/globals';
import type { GraphNode } from '@inntak/graph';
import { accessDeliveries, nodeDeliveries, type AudienceFacts } from './audience.js';

const webhook: GraphNode = {
  id: 'w',
  node_kind: 'webhook',
  title: 'Hook',
  content: null,
  visibility: 'discoverable',
  metadata: { token: 'secret', template_id: 'ci-build' },
  created_by: 'creator',
  created_at: new Date(0),
};
const facts: AudienceFacts = { created_by: 'creator', visibility: 'discoverable', access: [['owner', 'owner'], ['admin', 'admin'], ['reader', 'reader']] };

describe('audience of a node change', () => {
  it('groups subjects by the view they get, so each version is sent once', () => {
    const deliveries = nodeDeliveries(webhook, facts);
    const by = (subject: string) => deliveries.find((d) => d.subjects.includes(subject));
    expect(by('owner')).toBe(by('admin'));
    expect(by('owner')!.row.metadata).toEqual({ token: 'secret', template_id: 'ci-build' });
    expect(by('creator')).toBe(by('reader'));
    expect(by('reader')!.row.metadata).toEqual({ template_id: 'ci-build' });
    expect(deliveries.find((d) => d.everyone)!.row).toMatchObject({ content: null, metadata: {} });
    expect(deliveries).toHaveLength(3);
  });

  it('sends a hidden node to nobody but its creator and its access subjects', () => {
    const deliveries = nodeDeliveries({ ...webhook, visibility: 'hidden' }, { ...facts, visibility: 'hidden' });
    expect(deliveries.some((d) => d.everyone)).toBe(false);
    expect(deliveries.flatMap((d) => d.subjects).sort()).toEqual(['admin', 'creator', 'owner', 'reader']);
  });
});

describe('audience of an access row', () => {
  it('reaches its subject and those who administer the object, never everyone', () => {
    const [delivery] = accessDeliveries({ subject_id: 'new', object_id: 'w', access: 'reader', via_edge: null }, facts);
    expect(delivery!.subjects.sort()).toEqual(['admin', 'new', 'owner']);
    expect(delivery!.everyone).toBe(false);
  });
});
