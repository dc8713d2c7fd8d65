import { AppError } from '@inntak/core';
import { findTemplate } from '@inntak/templates';

/** The URL outside systems post to: the token is the credential, so the URL is a secret too. */
export function intakeUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/api/webhook/${token}`;
}

/**
 * A webhook's template id as an administrator sets it: a template the registry knows, or null
 * for generic extraction. (Intake itself tolerates an unknown id; setting one is refused.)
 */
export function knownTemplateId(id: string | null | undefined): string | null {
  if (id === null || id === undefined) return null;
  if (!findTemplate(id)) throw new AppError('unknown_template', { detail: `template_id: ${id}` });
  return id;
}
