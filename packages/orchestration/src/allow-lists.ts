// The operator's allow-lists (ORCHESTRATION_HTTP_ALLOW, ORCHESTRATION_CLI_ALLOW) are read by the
// worker's config (comma-separated, empty entries ignored); nothing is allowed when one is unset.

/**
 * A URL may be posted to when its host is on the list: an entry without a port allows the host
 * on any port, `host:port` only that port. Host names compare case-insensitively.
 */
export function hostAllowed(url: URL, allow: readonly string[]): boolean {
  const hostname = url.hostname.toLowerCase();
  const host = url.host.toLowerCase();
  return allow.some((entry) => {
    const e = entry.toLowerCase();
    return e === hostname || e === host;
  });
}

/** A command is allowed when it is on the list exactly as written (a name or an absolute path). */
export function commandAllowed(command: string, allow: readonly string[]): boolean {
  return allow.includes(command);
}
