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

/**
 * graphile-worker's own log lines go through the same winston logger. Its per-job lines carry the
 * whole job, payload included: only the job's id and task are kept, and they go to debug, since
 * the governed task wrapper logs every start and end itself.
 */
export function workerLogger(logger: winston.Logger): WorkerLogger {
  const factory: LogFunctionFactory = (scope) => (level, message, meta) => {
    const { job, ...rest } = (meta ?? {}) as { job?: { id?: unknown; task_identifier?: unknown } } & Record<string, unknown>;
    const jobMeta = job ? { worker_job_id: job.id, task: job.task_identifier } : {};
    const winstonLevel = level === 'warning' ? 'warn' : job && level === 'info' ? 'debug' : level;
    logger.log(winstonLevel, message, { ...scope, ...rest, ...jobMeta });
  };
  return new WorkerLogger(factory);
}
