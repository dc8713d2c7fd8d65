// The operator's allow-lists (ORCHESTRATION_HTTP_ALLOW, ORCHESTRATION_CLI_ALLOW) are read by the
// worker's config (comma-separated, empty entries ignored); nothing is allowed when one is unset.

/**
 * A URL may be posted to when its host is on the list: `host:port` allows that port only, a bare
 * `host` only the scheme's default port (80 for http, 443 for https). A bare entry used to allow
 * every port, so `localhost` opened every local service to any login (issue 35, finding 9).
 * Host names compare case-insensitively.
 */
export function hostAllowed(url: URL, allow: readonly string[]): boolean {
  const hostname = url.hostname.toLowerCase();
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  // WHATWG URLs drop a scheme's default port: an empty port is that default.
  const port = url.port || defaultPort;
  return allow.some((entry) => {
    const [, name, entryPort] = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase())!;
    return name === hostname && (entryPort ?? defaultPort) === port;
  });
}

/** A command is allowed when it is on the list exactly as written (a name or an absolute path). */
export function commandAllowed(command: string, allow: readonly string[]): boolean {
  return allow.includes(command);
}
