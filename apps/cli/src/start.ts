import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { Logger } from '@inntak/core';
import { APP_CONFIG_MODULES, APP_ENTRYPOINTS, type CliConfig } from './config.js';
import { migrate, resolveDatabase } from './compose.js';

/**
 * `npm start`: check every setting, migrate, then run the API and the worker as two child
 * processes sharing one database. The children are tied to this process by an IPC channel
 * (they stop when it goes away, even on SIGKILL); a signal to this process is passed on; a child
 * or the embedded database stopping on its own stops the rest. The embedded database (if any)
 * is stopped last.
 */
export async function startAll(config: CliConfig, logger: Logger): Promise<number> {
  // Everything the API and the worker would refuse is refused now, before anything is migrated.
  // The embedded database's URL is not known yet; a placeholder lets the worker's check pass.
  const checkEnv = { ...config.env, DATABASE_URL: config.databaseUrl ?? 'postgres://embedded/inntak' };
  const apiConfig = ((await import(APP_CONFIG_MODULES.api)) as { loadConfig(env: NodeJS.ProcessEnv): { port: number; host: string | undefined } }).loadConfig(checkEnv);
  await (import(APP_CONFIG_MODULES.worker) as Promise<{ loadConfig(env: NodeJS.ProcessEnv, argv: string[]): unknown }>).then((m) => m.loadConfig(checkEnv, []));
  await portIsFree(apiConfig.port, apiConfig.host);

  const database = await resolveDatabase(config, logger);
  const children = new Map<string, ChildProcess>();
  let stopping = false;
  const stopAll = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const child of children.values()) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => stopAll(signal === 'SIGHUP' ? 'SIGTERM' : signal));
  void database.exited.then(() => {
    if (!stopping) logger.error('the embedded PostgreSQL stopped; stopping');
    stopAll('SIGTERM');
  });

  try {
    const report = await migrate(database.url);
    logger.info('database migrated', { applied: report.applied, version: report.version });
  } catch (err) {
    await database.release();
    throw err;
  }
  if (stopping) {
    await database.release();
    return 0;
  }

  const env = { ...config.env, DATABASE_URL: database.url };
  for (const [name, entry] of Object.entries(APP_ENTRYPOINTS)) {
    children.set(name, spawn(process.execPath, [entry], { env, stdio: ['inherit', 'inherit', 'inherit', 'ipc'] }));
  }
  const codes = await Promise.all(
    [...children].map(
      ([name, child]) =>
        new Promise<number>((resolve) => {
          child.on('exit', (code, signal) => {
            const expected = stopping;
            if (!expected) logger.error(`${name} exited unexpectedly; stopping`, { code, signal });
            stopAll('SIGTERM');
            resolve(code ?? (expected ? 0 : 1));
          });
        }),
    ),
  );
  await database.release();
  logger.info('inntak stopped');
  return Math.max(...codes);
}

async function portIsFree(port: number, host: string | undefined): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === 'EADDRINUSE' ? `PORT ${port} is already in use: stop what listens there or choose another PORT` : `PORT ${port}: ${err.message}`)),
    );
    probe.listen(port, host, () => resolve());
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
