/**
 * Slugs and custom domains of publications. A slug is a path segment under /pub/: lowercase
 * letters, digits and inner hyphens, 1–63 characters. A domain is a host name a reader's browser
 * sends in Host: lowercase labels of letters, digits and inner hyphens, at least two labels,
 * at most 253 characters, no port, no trailing dot. Both are compared lowercased.
 */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function isValidSlug(slug: string): boolean {
  return SLUG.test(slug);
}

/** The domain lowercased, or undefined when it is not a host name a publication can have. */
export function normalizeDomain(domain: string): string | undefined {
  const lower = domain.trim().toLowerCase();
  if (lower.length === 0 || lower.length > 253) return undefined;
  const labels = lower.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return undefined;
  // A dotted quad is an address, not a name a publication can own.
  if (labels.every((l) => /^[0-9]+$/.test(l))) return undefined;
  return lower;
}

/** The host name of a Host header (port and trailing dot removed, lowercased). */
export function hostName(hostHeader: string | undefined): string | undefined {
  if (!hostHeader || hostHeader.length > 300) return undefined;
  const withoutPort = hostHeader.startsWith('[') ? hostHeader : hostHeader.replace(/:[0-9]*$/, '');
  return withoutPort.replace(/\.$/, '').toLowerCase();
}
