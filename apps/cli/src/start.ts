import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '@inntak/core';
import { migrate } from '@inntak/postgres';
import { APP_ENTRYPOINTS } from './config.js';
import type { ResolvedDatabase } from './database.js';

/**
 * `npm start`: migrate, then run the API and the worker as two child processes sharing one
 * database. SIGTERM/SIGINT is passed on; when both children have exited, the embedded database
 * (if any) is stopped. If either child dies on its own, the other is stopped too.
 */
export async function startAll(database: ResolvedDatabase, logger: Logger): Promise<number> {
  const report = await migrate(database.url);
  logger.info('database migrated', { applied: report.applied, version: report.version });

  const env = { ...process.env, DATABASE_URL: database.url };
  const children = new Map<string, ChildProcess>();
  for (const [name, entry] of Object.entries(APP_ENTRYPOINTS)) {
    children.set(name, spawn(process.execPath, [entry], { env, stdio: 'inherit' }));
  }

  let stopping = false;
  const stopAll = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const child of children.values()) if (child.exitCode === null) child.kill(signal);
  };
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  process.on('SIGINT', () => stopAll('SIGINT'));

  const codes = await Promise.all(
    [...children].map(
      ([name, child]) =>
        new Promise<number>((resolve) => {
          child.on('exit', (code, signal) => {
            if (!stopping) logger.error(`${name} exited unexpectedly; stopping`, { code, signal });
            stopAll('SIGTERM');
            resolve(code ?? 1);
          });
        }),
    ),
  );
  await database.release();
  return Math.max(...codes);
}
