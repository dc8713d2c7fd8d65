import type { Logger } from '@inntak/core';

/** winston's levels, most severe first; LOG_LEVEL names one of them. */
const LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'];

/**
 * A command's log (every command but `start`, which keeps winston): one JSON line per entry on
 * stderr, the fields winston's json format writes (level, message, service, the entry's own,
 * timestamp), so stdout stays the one JSON answer. Not winston itself: loading it was a tenth of
 * a second of every call (docs/cli.md, "Speed").
 */
export function stderrLogger(level: string): Logger {
  const most = LEVELS.indexOf(level);
  const enabled = (entryLevel: string) => LEVELS.indexOf(entryLevel) <= most;
  const at = (entryLevel: string) => (message: string, meta?: Record<string, unknown>) => {
    if (enabled(entryLevel)) process.stderr.write(`${JSON.stringify({ level: entryLevel, message, service: 'inntak-cli', ...meta, timestamp: new Date().toISOString() })}\n`);
  };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), isLevelEnabled: enabled };
}
