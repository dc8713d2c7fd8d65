import { fileURLToPath } from 'node:url';

/** The CLI's one config module: nothing else reads process.env. */
export interface CliConfig {
  databaseUrl: string | undefined;
  /** Where the embedded PostgreSQL keeps its data when DATABASE_URL is not set. */
  dataDir: string;
  embeddedPort: number;
  baseUrl: string;
  logLevel: string;
  /** STORAGE_DIR: where media files live (inntak prune). */
  storageDir: string;
}

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export function loadConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const port = env.PORT ?? '8080';
  const embeddedPort = Number(env.EMBEDDED_PG_PORT ?? '54329');
  if (!Number.isInteger(embeddedPort) || embeddedPort < 1 || embeddedPort > 65535) {
    throw new Error(`EMBEDDED_PG_PORT must be a port number; got "${env.EMBEDDED_PG_PORT}"`);
  }
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.INNTAK_DATA_DIR ?? `${REPO_ROOT}.data`,
    embeddedPort,
    baseUrl: (env.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    logLevel: env.LOG_LEVEL ?? 'info',
    storageDir: env.STORAGE_DIR ?? `${REPO_ROOT}.data/media`,
  };
}

export const APP_ENTRYPOINTS = {
  api: fileURLToPath(new URL('../../api/dist/main.js', import.meta.url)),
  worker: fileURLToPath(new URL('../../worker/dist/main.js', import.meta.url)),
};
