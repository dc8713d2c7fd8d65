import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { envVar } from '@inntak/core';

/** The CLI's one config module: nothing else reads process.env. */
export interface CliConfig {
  databaseUrl: string | undefined;
  /** Where the embedded PostgreSQL (and the development issuer's key) lives. */
  dataDir: string;
  embeddedPort: number;
  baseUrl: string;
  logLevel: string;
  /** The environment as given, for the API and worker processes `start` runs. */
  env: NodeJS.ProcessEnv;
  /** STORAGE_DIR: where media files live (inntak prune). */
  storageDir: string;
  /** ORCHESTRATIONS_PER_PERSON: orchestrations one person may have (`orchestration add` runs as the collection's owner). */
  orchestrationsPerPerson: number;
  /** UPLOAD_MAX_{AUDIO,IMAGE,VIDEO}_BYTES and MEDIA_BYTES_PER_COLLECTION (inntak media add). */
  uploads: { audio: number; image: number; video: number; collectionMediaBytes: number };
}

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The CLI's settings, one zod piece per variable (packages/core config-schema). */
const cliEnv = z
  .object({
    PORT: envVar.port(8080),
    EMBEDDED_PG_PORT: envVar.port(54329),
    LOG_LEVEL: envVar.logLevel(),
    BASE_URL: envVar.httpUrl(),
    DATABASE_URL: envVar.postgresUrl(),
    INNTAK_DATA_DIR: z
      .string()
      .optional()
      .refine((dir) => dir === undefined || (dir.trim() !== '' && !/[\0\n\r]/.test(dir)), { error: (issue) => `must be a directory path; got ${JSON.stringify(issue.input)}` }),
    STORAGE_DIR: envVar.text(),
    ORCHESTRATIONS_PER_PERSON: envVar.integer(100, 1, 1_000_000),
    // inntak media add takes what POST /media takes (docs/media.md, "Upload").
    UPLOAD_MAX_AUDIO_BYTES: envVar.size('100mb', '2gb'),
    UPLOAD_MAX_IMAGE_BYTES: envVar.size('20mb', '2gb'),
    UPLOAD_MAX_VIDEO_BYTES: envVar.size('200mb', '2gb'),
    MEDIA_BYTES_PER_COLLECTION: envVar.size('1gb'),
  })
  .transform((env) => {
    const dataDir = env.INNTAK_DATA_DIR ?? `${REPO_ROOT}.data`;
    return {
      databaseUrl: env.DATABASE_URL,
      dataDir: isAbsolute(dataDir) ? dataDir : resolve(dataDir),
      embeddedPort: env.EMBEDDED_PG_PORT,
      baseUrl: env.BASE_URL ?? `http://localhost:${env.PORT}`,
      logLevel: env.LOG_LEVEL,
      storageDir: env.STORAGE_DIR ?? `${REPO_ROOT}.data/media`,
      orchestrationsPerPerson: env.ORCHESTRATIONS_PER_PERSON,
      uploads: { audio: env.UPLOAD_MAX_AUDIO_BYTES, image: env.UPLOAD_MAX_IMAGE_BYTES, video: env.UPLOAD_MAX_VIDEO_BYTES, collectionMediaBytes: env.MEDIA_BYTES_PER_COLLECTION },
    };
  });

export function loadConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  return { ...envVar.parseEnv(cliEnv, env), env };
}

export const APP_ENTRYPOINTS = {
  api: fileURLToPath(new URL('../../api/dist/main.js', import.meta.url)),
  worker: fileURLToPath(new URL('../../worker/dist/main.js', import.meta.url)),
};

/** Each app's own config module, so `start` can refuse a bad setting before it migrates. */
export const APP_CONFIG_MODULES = {
  api: new URL('../../api/dist/config.js', import.meta.url).href,
  worker: new URL('../../worker/dist/config.js', import.meta.url).href,
};
