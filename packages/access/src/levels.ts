/**
 * Access levels, weakest first. A row in the access matrix (`node_access`) grants a subject one
 * level on an object and remembers the edge that granted it (`via_edge`).
 */
export const ACCESS_LEVELS = ['reader', 'member', 'admin', 'owner'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export function isAccessLevel(value: unknown): value is AccessLevel {
  return typeof value === 'string' && (ACCESS_LEVELS as readonly string[]).includes(value);
}

/** True when `held` is at least as strong as `required`. */
export function grants(held: AccessLevel | null | undefined, required: AccessLevel): boolean {
  if (!held) return false;
  return ACCESS_LEVELS.indexOf(held) >= ACCESS_LEVELS.indexOf(required);
}

export interface AccessRow {
  subject_id: string;
  object_id: string;
  access: AccessLevel;
  via_edge: string | null;
}
