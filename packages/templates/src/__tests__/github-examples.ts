import { createRequire } from 'node:module';

/**
 * Real GitHub payloads for every event, from the `@octokit/webhooks-examples` npm package (MIT,
 * maintained by the Octokit project from real deliveries), installed as a dev dependency.
 */
const require = createRequire(import.meta.url);
const EVENTS = require('@octokit/webhooks-examples') as Array<{ name: string; examples: unknown[] }>;

export function githubExamples(event: string): unknown[] {
  return EVENTS.find((e) => e.name === event)?.examples ?? [];
}

/** The first example of an event whose top-level `action` (when given) matches. */
export function githubExample(event: string, action?: string): unknown {
  const found = githubExamples(event).find((p) => action === undefined || (p as { action?: string }).action === action);
  if (found === undefined) throw new Error(`no ${event} example${action ? ` with action ${action}` : ''}`);
  return found;
}

export function allGithubExamples(): Array<{ name: string; examples: unknown[] }> {
  return EVENTS;
}
