import winston from 'winston';

/** Structured JSON logs on stdout, one line per event. */
export function createLogger(level: string, transports?: winston.transport[]): winston.Logger {
  return winston.createLogger({
    level,
    format: winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    defaultMeta: { service: 'inntak-api' },
    transports: transports ?? [new winston.transports.Console()],
  });
}
