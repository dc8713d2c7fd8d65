import { readFile } from 'node:fs/promises';
import { EVENT_TYPES, type EventType } from '@inntak/orchestration';
import { id, optional, required, requireKind, UsageError, type CommandSpec } from '../command-line.js';

export const orchestrationAdd: CommandSpec = {
  name: 'orchestration add',
  args: '--collection ID --file script.yaml [--event node.created|edge.created] [--node-kind K] [--title T]',
  summary: "an orchestration observing a collection, run as the collection's owner (docs/orchestration.md)",
  options: {
    collection: id('the collection it observes and belongs to'),
    file: { type: 'string', help: 'the script (YAML); checked before anything is saved' },
    event: { type: 'string', help: 'node.created (default: a node created in the collection) or edge.created (an edge to or from the collection)' },
    'node-kind': { type: 'string', help: 'only nodes of this kind (for edge.created: edges from one), e.g. content — the collection\'s webhooks are nodes in it too' },
    title: { type: 'string', help: "the orchestration's title" },
  },
  async run(options, context) {
    const event = optional(options, 'event') ?? 'node.created';
    if (!(EVENT_TYPES as readonly string[]).includes(event)) throw new UsageError(`--event må være node.created eller edge.created; fikk «${event}»`);
    const file = required(options, 'file');
    let script: string;
    try {
      script = await readFile(file, 'utf8');
    } catch (err) {
      throw new UsageError(`--file ${file} kan ikke leses (${(err as { code?: string }).code ?? (err as Error).message})`);
    }
    const collectionId = await requireKind(context, options, 'collection', 'collection');
    return context.services.addCollectionOrchestration(
      { collection_id: collectionId, script, event: event as EventType, node_kind: optional(options, 'node-kind'), title: optional(options, 'title') },
      context.orchestrationsPerPerson,
    );
  },
};
