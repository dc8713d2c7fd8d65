/**
 * The narrow logging port domain code sees. Apps pass their winston logger, which fits as is.
 */
export interface Logger {
  error(message: string, meta?: Record<string, unknown>): unknown;
  warn(message: string, meta?: Record<string, unknown>): unknown;
  info(message: string, meta?: Record<string, unknown>): unknown;
  debug(message: string, meta?: Record<string, unknown>): unknown;
  /** winston's: lets a hot path skip building a line nobody will see. Absent: assume enabled. */
  isLevelEnabled?(level: string): boolean;
}

/** A logger that adds `meta` to every line (a request's id, say); cheaper than winston's child. */
export function withMeta(logger: Logger, meta: Record<string, unknown>): Logger {
  return {
    error: (message, more) => logger.error(message, { ...meta, ...more }),
    warn: (message, more) => logger.warn(message, { ...meta, ...more }),
    info: (message, more) => logger.info(message, { ...meta, ...more }),
    debug: (message, more) => logger.debug(message, { ...meta, ...more }),
    isLevelEnabled: (level) => logger.isLevelEnabled?.(level) ?? true,
  };
}
