/** The worker's one config module: nothing else reads process.env. */
export interface WorkerConfig {
  databaseUrl: string;
  concurrency: number;
  logLevel: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  if (!env.DATABASE_URL) throw new Error('DATABASE_URL is not set (npm start sets it, with an embedded PostgreSQL)');
  const concurrency = Number(env.WORKER_CONCURRENCY ?? '3');
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new Error(`WORKER_CONCURRENCY must be a positive integer; got "${env.WORKER_CONCURRENCY}"`);
  }
  return { databaseUrl: env.DATABASE_URL, concurrency, logLevel: env.LOG_LEVEL ?? 'info' };
}
