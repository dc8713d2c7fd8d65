/**
 * The language of the words a template writes itself: headlines ("ola dyttet 3 commits til
 * main"), fact labels, status words. The sender's own words (commit messages, titles, bodies,
 * names) are never translated. The templates are written in English; `t` looks a phrase up in
 * the Norwegian (bokmål) catalogue and falls back to the English phrase, so a phrase missing
 * here reads in English rather than not at all.
 */
export type Locale = 'nb' | 'en';

export const LOCALES: readonly Locale[] = ['nb', 'en'];

/** What intake, re-render and preview use when the webhook names no locale (docs/templates.md#language). */
export const DEFAULT_LOCALE: Locale = 'nb';

export function isLocale(value: unknown): value is Locale {
  return value === 'nb' || value === 'en';
}

const NB: Readonly<Record<string, string>> = {
  // Fact labels.
  Repository: 'Repo',
  'Repository URL': 'Repo-URL',
  Pusher: 'Dyttet av',
  Branch: 'Gren',
  Branches: 'Grener',
  Tag: 'Tagg',
  Change: 'Endring',
  Commits: 'Commits',
  Commit: 'Commit',
  Head: 'Topp',
  'Head commit': 'Toppcommit',
  Compare: 'Sammenlign',
  Release: 'Utgivelse',
  Action: 'Handling',
  Kind: 'Type',
  By: 'Av',
  Event: 'Hendelse',
  Events: 'Hendelser',
  Actor: 'Utført av',
  Issue: 'Sak',
  'Pull request': 'Pull request',
  'Merge request': 'Merge request',
  State: 'Tilstand',
  Labels: 'Etiketter',
  Assignees: 'Tildelt',
  Author: 'Forfatter',
  Review: 'Gjennomgang',
  File: 'Fil',
  'Merge status': 'Flettestatus',
  'CI system': 'CI-system',
  Pipeline: 'Pipeline',
  Job: 'Jobb',
  Build: 'Bygg',
  Status: 'Status',
  Duration: 'Varighet',
  Channel: 'Kanal',
  User: 'Bruker',
  Thread: 'Tråd',
  Edited: 'Endret',
  Deleted: 'Slettet',
  Bot: 'Bot',
  Files: 'Filer',
  'Hook id': 'Webhook-id',
  'Set up by': 'Satt opp av',
  Comment: 'Kommentar',
  none: 'ingen',
  yes: 'ja',
  '(no message)': '(ingen melding)',
  '(no number)': '(uten nummer)',
  // Pushes.
  '{who} pushed {commits} to {ref}': '{who} dyttet {commits} til {ref}',
  '{commits} pushed to {ref}': '{commits} dyttet til {ref}',
  '{who} pushed to {ref} (no new commits)': '{who} dyttet til {ref} (ingen nye commits)',
  'Push to {ref} (no new commits)': 'Dytt til {ref} (ingen nye commits)',
  '{who} force-pushed {commits} to {ref}': '{who} tvangsdyttet {commits} til {ref}',
  '{commits} force-pushed to {ref}': '{commits} tvangsdyttet til {ref}',
  '{who} force-pushed {ref} (no new commits)': '{who} tvangsdyttet {ref} (ingen nye commits)',
  '{ref} force-pushed (no new commits)': '{ref} tvangsdyttet (ingen nye commits)',
  '{who} created branch {ref}': '{who} opprettet grenen {ref}',
  'Branch {ref} created': 'Grenen {ref} opprettet',
  '{who} created branch {ref} with {commits}': '{who} opprettet grenen {ref} med {commits}',
  'Branch {ref} created with {commits}': 'Grenen {ref} opprettet med {commits}',
  '{who} pushed new tag {ref}': '{who} dyttet ny tagg {ref}',
  'New tag {ref}': 'Ny tagg {ref}',
  '{who} moved tag {ref}': '{who} flyttet taggen {ref}',
  'Tag {ref} moved': 'Taggen {ref} flyttet',
  '{who} deleted {label}': '{who} slettet {label}',
  '{label} deleted': '{label} slettet',
  branch: 'gren',
  tag: 'tagg',
  push: 'dytt',
  'force push': 'tvangsdytt',
  created: 'opprettet',
  deleted: 'slettet',
  ', head is now {sha}': ', toppen er nå {sha}',
  '… and {n} more': '… og {n} til',
  '… and more commits (the sender truncated the list)': '… og flere commits (avsenderen kuttet listen)',
  '(+{n} more refs)': '(+{n} refer til)',
  // Issues and pull requests: the verb phrases the readers produce.
  issue: 'sak',
  'pull request': 'pull request',
  'merge request': 'merge request',
  opened: 'åpnet',
  closed: 'lukket',
  reopened: 'gjenåpnet',
  edited: 'endret',
  updated: 'oppdaterte',
  labeled: 'merket',
  unlabeled: 'fjernet en etikett fra',
  assigned: 'tildelte',
  unassigned: 'fjernet tildelingen av',
  merged: 'slo sammen',
  'commented on': 'kommenterte',
  'pushed to': 'dyttet til',
  approved: 'godkjente',
  'requested changes on': 'ba om endringer i',
  reviewed: 'gjennomgikk',
  'closed without merging': 'lukket uten å slå sammen',
  'closed without merge': 'lukket uten sammenslåing',
  open: 'åpen',
  draft: 'utkast',
  // CI.
  '{system} {what} {status}': '{system} {what} {status}',
  succeeded: 'lyktes',
  failed: 'feilet',
  'is running': 'kjører',
  'was canceled': 'ble avbrutt',
  'reported {status}': 'rapporterte {status}',
  'event (status unknown)': 'hendelse (ukjent status)',
  ' on {ref}': ' på {ref}',
  running: 'kjører',
  canceled: 'avbrutt',
  other: 'annet',
  // Chat.
  someone: 'noen',
  'thread reply': 'svar i tråd',
  deleted_mark: 'slettet',
  '(message deleted)': '(melding slettet)',
  '(no text)': '(ingen tekst)',
  'reply in thread {thread}': 'svar i tråden {thread}',
};

/** The phrase in `locale`, with `{name}` filled from `vars` (one pass: a value is never read as a pattern). */
export function t(locale: Locale, phrase: string, vars?: Readonly<Record<string, string | number>>): string {
  // Own keys only: a phrase can come from a payload (an action word), and `constructor` is not one of ours.
  const pattern = locale === 'nb' && Object.prototype.hasOwnProperty.call(NB, phrase) ? NB[phrase]! : phrase;
  if (!vars) return pattern;
  return pattern.replace(/\{([a-z]+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}
