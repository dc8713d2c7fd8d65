import { accessSync, constants, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { delimiter, join } from 'node:path';

/**
 * Engines: programs some tests need that `npm ci` does not install (README, "Optional
 * engines"). A test that needs one runs where it is installed and is skipped elsewhere, saying
 * in one line what is missing and which Debian packages bring it. `.ci/run` installs them all
 * and sets INNTAK_REQUIRE_ENGINES=1, under which a missing engine fails the test file instead,
 * so CI cannot skip quietly.
 */
export type EngineName = 'pocketsphinx' | 'java' | 'postgres' | 'curl-jq' | 'chromium' | 'nats';

/** Debian's PostgreSQL 15 binaries (package postgresql-15). */
export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';
/** The browser of `npm run test:e2e`: Debian's chromium, or CHROMIUM_PATH. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** A NATS server with JetStream for the intake spool's NATS adapter (INTAKE_SPOOL_TEST_NATS names another). */
export const NATS_URL = process.env.INTAKE_SPOOL_TEST_NATS ?? 'nats://127.0.0.1:4222';
/** Debian's pocketsphinx-en-us: PocketSphinx's US English model. */
export const POCKETSPHINX_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

interface Engine {
  /** Debian packages that bring it. */
  packages: string[];
  /** What is missing (its name, the file or command in brackets where that helps), or undefined. */
  missing(): string | undefined;
}

export const ENGINES: Record<EngineName, Engine> = {
  pocketsphinx: {
    packages: ['pocketsphinx', 'pocketsphinx-en-us'],
    missing: () =>
      (!onPath('pocketsphinx_continuous') && 'PocketSphinx (pocketsphinx_continuous)') ||
      (!existsSync(POCKETSPHINX_MODEL_DIR) && `PocketSphinx's US English model (${POCKETSPHINX_MODEL_DIR})`) ||
      undefined,
  },
  java: {
    packages: ['default-jre-headless'],
    missing: () => (onPath('java') ? undefined : "Java (java, which runs npm vnu-jar's Nu HTML Checker)"),
  },
  postgres: {
    packages: ['postgresql-15'],
    missing: () => {
      const tool = ['initdb', 'postgres', 'pg_ctl', 'pg_basebackup', 'pg_isready'].find((t) => !existsSync(join(POSTGRES_BIN, t)));
      if (tool) return `Debian's PostgreSQL 15 server (${join(POSTGRES_BIN, tool)})`;
      // PostgreSQL refuses to run as root; the package makes the OS user it then runs as.
      if (process.getuid?.() === 0 && osUser('postgres') === undefined) return "the OS user postgres (PostgreSQL refuses to run as root)";
      return undefined;
    },
  },
  'curl-jq': {
    packages: ['curl', 'jq'],
    missing: () => ['curl', 'jq'].find((c) => !onPath(c)),
  },
  nats: {
    packages: ['nats-server'],
    // A service, not a program: it must answer (`nats-server -js`; .ci/run starts it).
    missing: () => (answers(NATS_URL) ? undefined : `a NATS server with JetStream answering at ${NATS_URL} (nats-server -js)`),
  },
  chromium: {
    packages: ['chromium'],
    missing: () => (existsSync(CHROMIUM_PATH) ? undefined : `Chromium (${CHROMIUM_PATH}; CHROMIUM_PATH names another)`),
  },
};

/**
 * Why these engines cannot run here, as one line naming what is missing and how to install it
 * ("PocketSphinx (pocketsphinx_continuous) is not installed; apt-get install pocketsphinx
 * pocketsphinx-en-us"), or undefined when they all can.
 */
export function engineUnavailable(...names: EngineName[]): string | undefined {
  for (const name of names) {
    const missing = ENGINES[name].missing();
    if (missing) return `${missing} is not installed; apt-get install ${ENGINES[name].packages.join(' ')}`;
  }
  return undefined;
}

/** The part of jest's `describe` this needs (test-support stays free of jest, for the benches). */
interface Describe {
  (title: string, fn: () => void): void;
  skip(title: string, fn: () => void): void;
}

/**
 * `describe(title, fn)` where the engines are installed. Where one is not: the block is
 * skipped (its hooks do not run) and one line says so on stderr, written directly because
 * console.warn under jest adds a code frame and a stack to it; under INNTAK_REQUIRE_ENGINES=1
 * the test file fails with that line instead.
 */
export function describeWithEngine(engines: EngineName | EngineName[], describe: Describe, title: string, fn: () => void): void {
  const unavailable = engineUnavailable(...[engines].flat());
  if (!unavailable) return describe(title, fn);
  const line = `"${title}" tests skipped: ${unavailable}`;
  if (process.env.INNTAK_REQUIRE_ENGINES === '1') throw new Error(`${line} (INNTAK_REQUIRE_ENGINES=1 forbids the skip)`);
  process.stderr.write(`${line}\n`);
  describe.skip(title, fn);
}

/** Whether something accepts a TCP connection at the URL's host and port, asked synchronously (a describe block is decided at load). */
function answers(url: string): boolean {
  const { hostname, port } = new URL(url);
  const probe = `require('net').connect(${Number(port)}, ${JSON.stringify(hostname)}).on('connect', () => process.exit(0)).on('error', () => process.exit(1))`;
  try {
    execFileSync(process.execPath, ['-e', probe], { timeout: 3000, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export function osUser(name: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}
