import { readFile } from 'node:fs/promises';
import type { EventType } from '@inntak/orchestration';
import { id, optional, required, requireKind, UsageError, wholeNumber, type CommandContext, type CommandSpec, type Options } from '../command-line.js';
import { readStdin } from './webhooks.js';

export const orchestrationAdd: CommandSpec = {
  name: 'orchestration add',
  args: '--collection ID --file script.yaml [--event node.created|edge.created|node.updated|manual|schedule] [--cron "*/5 * * * *"] [--node-kind K] [--title T]',
  summary: "an orchestration observing a collection, run as the collection's owner (docs/orchestration.md)",
  options: {
    collection: id('the collection it observes and belongs to'),
    file: { type: 'string', help: 'the script (YAML); checked before anything is saved' },
    event: {
      type: 'string',
      help: 'node.created (default: a node created in the collection), edge.created (an edge to or from it), node.updated (a node in it changed), manual (inntak orchestration run) or schedule (--cron)',
    },
    cron: { type: 'string', help: 'for --event schedule: five fields, UTC (graphile-worker crontab syntax)' },
    'node-kind': { type: 'string', help: 'only nodes of this kind (for edge.created: edges from one), e.g. content — the collection\'s webhooks are nodes in it too' },
    title: { type: 'string', help: "the orchestration's title" },
  },
  async run(options, context) {
    const event = optional(options, 'event') ?? 'node.created';
    // @inntak/orchestration takes most of a second to load; only this command needs it.
    const { EVENT_TYPES } = await import('@inntak/orchestration');
    if (!(EVENT_TYPES as readonly string[]).includes(event)) throw new UsageError(`--event må være en av ${EVENT_TYPES.join(', ')}; fikk «${event}»`);
    const script = await readScript(required(options, 'file'), 'file');
    const cron = optional(options, 'cron');
    const collectionId = await requireKind(context, options, 'collection', 'collection');
    return context.services.addCollectionOrchestration(
      { collection_id: collectionId, script, event: event as EventType, node_kind: optional(options, 'node-kind'), title: optional(options, 'title'), ...(cron ? { cron } : {}) },
    );
  },
};

async function readScript(file: string, option: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--${option} ${file} kan ikke leses (${(err as { code?: string }).code ?? (err as Error).message})`);
  }
}

const orchestrationId = (context: CommandContext, options: Options) => requireKind(context, options, 'id', 'orchestration');

// Managing one (issue 27): as the operator, who administers every orchestration; docs/orchestration.md.
export const orchestrationUpdate: CommandSpec = {
  name: 'orchestration update',
  args: '--id ID [--file script.yaml] [--title T]',
  summary: "a new script (checked first; nothing is saved on an error) or title; it keeps running as whom it ran as",
  options: {
    id: id('the orchestration'),
    file: { type: 'string', help: 'the new script (YAML)' },
    title: { type: 'string', help: 'the new title' },
  },
  async run(options, context) {
    const file = optional(options, 'file');
    const title = optional(options, 'title');
    if (file === undefined && title === undefined) throw new UsageError('--file eller --title mangler');
    const nodeId = await orchestrationId(context, options);
    return context.services.updateOrchestration(nodeId, { ...(file !== undefined ? { script: await readScript(file, 'file') } : {}), ...(title !== undefined ? { title } : {}) });
  },
};

/** A command taking one orchestration (--id) and nothing else: `act` is its one call of the services. */
const onOrchestration = (name: string, summary: string, act: (services: CommandContext['services'], nodeId: string) => Promise<unknown>): CommandSpec => ({
  name,
  args: '--id ID',
  summary,
  options: { id: id('the orchestration') },
  async run(options, context) {
    return act(context.services, await orchestrationId(context, options));
  },
});

export const orchestrationEnable = onOrchestration('orchestration enable', 'turn an orchestration on again (events in between are not replayed)', (services, nodeId) =>
  services.setOrchestrationEnabled(nodeId, true),
);
export const orchestrationDisable = onOrchestration(
  'orchestration disable',
  'turn an orchestration off: it matches nothing, is not scheduled, queued runs are skipped',
  (services, nodeId) => services.setOrchestrationEnabled(nodeId, false),
);
export const orchestrationDelete = onOrchestration('orchestration delete', 'delete an orchestration with its edges, log, runs, schedule and secrets', (services, nodeId) =>
  services.deleteOrchestration(nodeId),
);

export const orchestrationRun: CommandSpec = {
  name: 'orchestration run',
  args: "--id ID [--input '{\"key\": \"value\"}']",
  summary: 'run a manual orchestration now, with {event.input.*} from --input (a JSON object)',
  options: { id: id('the orchestration (trigger event manual)'), input: { type: 'string', help: 'a JSON object, at most 16 KB' } },
  async run(options, context) {
    const text = optional(options, 'input') ?? '{}';
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch {
      throw new UsageError('--input må være et JSON-objekt');
    }
    if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new UsageError('--input må være et JSON-objekt');
    return context.services.runOrchestration(await orchestrationId(context, options), input as Record<string, unknown>);
  },
};

export const orchestrationRerun: CommandSpec = {
  name: 'orchestration rerun',
  args: '--run ID [--from-start]',
  summary: 'run a stopped run again from the step that failed, with the same event; --from-start: any ended run again from step 1',
  options: { run: id('the run (orchestration runs --id …)'), 'from-start': { type: 'boolean', help: 'from step 1 with the same event or input, for any ended run' } },
  async run(options, context) {
    return context.services.rerunOrchestration(required(options, 'run'), undefined, options['from-start'] === true ? 'start' : 'failed_step');
  },
};

export const orchestrationRuns: CommandSpec = {
  name: 'orchestration runs',
  args: '--id ID [--limit N]',
  summary: "an orchestration's runs, newest first, with status and duration",
  options: { id: id('the orchestration'), limit: { type: 'string', help: 'how many (1–200, default 20)' } },
  async run(options, context) {
    const limit = wholeNumber(options, 'limit', { min: 1, max: 200 }) ?? 20;
    return context.services.listOrchestrationRuns(await orchestrationId(context, options), limit);
  },
};

export const orchestrationSetSecret: CommandSpec = {
  name: 'orchestration set-secret',
  args: '--id ID --name NAME --secret-stdin',
  summary: 'a secret for http_post headers ({secrets.NAME}), read from stdin; never shown again',
  options: {
    id: id('the orchestration'),
    name: { type: 'string', help: 'letters, digits and _, at most 64' },
    'secret-stdin': { type: 'boolean', help: 'read the secret from stdin (keeps it out of the shell history and ps); one trailing newline is dropped' },
  },
  async run(options, context) {
    if (options['secret-stdin'] !== true) throw new UsageError('--secret-stdin mangler');
    const name = required(options, 'name');
    const value = (await (context.readStdin ?? readStdin)()).replace(/\r?\n$/, '');
    return context.services.setOrchestrationSecret(await orchestrationId(context, options), name, value);
  },
};
