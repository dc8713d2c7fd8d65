/**
 * The narrow logging port domain code sees. Apps pass their winston logger, which fits as is.
 */
export interface Logger {
  error(message: string, meta?: Record<string, unknown>): unknown;
  warn(message: string, meta?: Record<string, unknown>): unknown;
  info(message: string, meta?: Record<string, unknown>): unknown;
  debug(message: string, meta?: Record<string, unknown>): unknown;
}
