import type { Logger } from './logger.js';

/**
 * SIGTERM, SIGINT and, when started by `inntak start` with an IPC channel, that parent going
 * away (even SIGKILLed) all call `onSignal`: installed first thing, so a signal at any point of
 * start-up is heard.
 */
export function onStopSignals(onSignal: (signal: string) => void): void {
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  if (process.send) process.on('disconnect', () => onSignal('parent exited'));
}

/** The app's config, or its one-line error (naming the variable) logged and exit 1. */
export function loadConfigOrExit<T>(load: () => T, errorLogger: () => Logger): T {
  try {
    return load();
  } catch (err) {
    errorLogger().error((err as Error).message, { tag: 'config' });
    process.exit(1);
  }
}
