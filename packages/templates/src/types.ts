/**
 * A template turns a sender's JSON payload (plus the request's headers, lower-cased) into the
 * title, content and extra metadata of the content node intake creates. Templates are pure and
 * total: whatever the payload's shape, they return a result and never throw.
 */
import type { Locale } from './locale.js';

export type JsonObject = { [key: string]: unknown };

/** Request headers with lower-cased names; a payload posted without headers gets `{}`. */
export type Headers = Readonly<Record<string, string | undefined>>;

export interface TemplateResult {
  title: string;
  content: string;
  extra_metadata: JsonObject;
  /**
   * Fields the sender needs to see in the 200 response besides `node_id` and `edge_id`
   * (Slack's url_verification wants its `challenge` echoed). Absent for most payloads.
   */
  reply?: JsonObject;
  /**
   * Set when a known sender's event type is one this template does not render in detail; the
   * result is still a generic, informative rendering and intake logs the event at info.
   */
  unsupported_event?: string;
}

export interface Template {
  id: string;
  title: string;
  description: string;
  /** Systems whose payloads the template understands, for the admin listing. */
  senders: readonly string[];
  /**
   * `locale`: the language of the words the template writes itself (headlines, labels); the
   * sender's words are never translated. English when not given; intake passes the webhook's.
   */
  render(payload: unknown, headers: Headers, locale?: Locale): TemplateResult;
}

export interface TemplateInfo {
  id: string;
  title: string;
  description: string;
  senders: readonly string[];
}

/**
 * Every request header a template reads (lower-case): the intake keeps these of a delivery in
 * its content node (`metadata.event_headers`), so the payload can be rendered again later, with
 * another template, exactly as it arrived (docs/deliveries.md#re-render). Names only events and
 * retries: never a signature, token or cookie.
 */
export const TEMPLATE_HEADERS = [
  'x-github-event',
  'x-gitlab-event',
  'x-gitea-event',
  'x-gitea-event-type',
  'x-forgejo-event',
  'x-forgejo-event-type',
  'x-gogs-event',
  'x-event-key',
  'x-buildkite-event',
  'x-slack-retry-num',
] as const;
