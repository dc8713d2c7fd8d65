import winston from 'winston';
import { Logger as WorkerLogger, type LogFunctionFactory } from 'graphile-worker';

export function createLogger(level: string): winston.Logger {
  return winston.createLogger({
    level,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    defaultMeta: { service: 'inntak-worker' },
    transports: [new winston.transports.Console()],
  });
}

/** graphile-worker's own log lines go through the same winston logger. */
export function workerLogger(logger: winston.Logger): WorkerLogger {
  const factory: LogFunctionFactory = (scope) => (level, message, meta) => {
    logger.log(level === 'warning' ? 'warn' : level, message, { ...scope, ...meta });
  };
  return new WorkerLogger(factory);
}
