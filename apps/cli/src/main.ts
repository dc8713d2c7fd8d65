#!/usr/bin/env node
import winston from 'winston';
import { listTemplates } from '@inntak/templates';
import { commandHelp, describeFailure, parseCommandLine, USAGE } from './commands.js';
import { migrate, openServices, resolveDatabase } from './compose.js';
import { loadConfig } from './config.js';
import { devToken } from './dev-token.js';
import { startAll } from './start.js';

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function main(argv: string[]): Promise<number> {
  const { command, values, help } = parseCommandLine(argv);
  if (help || !command) {
    process.stdout.write(`${command ? commandHelp(command) : USAGE}\n`);
    return 0;
  }
  if (command.name === 'templates') {
    print(listTemplates());
    return 0;
  }
  const config = loadConfig();
  if (command.name === 'token') {
    print(await devToken(config, values));
    return 0;
  }
  // stdout is for the JSON answer; every log line goes to stderr (but `start` is a server).
  const logger = winston.createLogger({
    level: config.logLevel,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    defaultMeta: { service: 'inntak-cli' },
    transports: [new winston.transports.Console(command.name === 'start' ? {} : { stderrLevels: ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] })],
  });
  if (command.name === 'start') return startAll(config, logger);

  const database = await resolveDatabase(config, logger);
  try {
    if (command.name === 'migrate') {
      print(await migrate(database.url));
      return 0;
    }
    const { services, close } = openServices(database.url, logger);
    try {
      if (command.run) {
        const context = {
          services,
          baseUrl: config.baseUrl,
          orchestrationsPerPerson: config.orchestrationsPerPerson,
          storageDir: config.storageDir,
          uploads: config.uploads,
          progress: (line: string) => process.stderr.write(`${line}\n`),
          log: (m: string) => logger.info(m),
        };
        print(await command.run(values, context));
      }
      return 0;
    } finally {
      await close();
    }
  } finally {
    await database.release();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const failure = describeFailure(err);
    process.stdout.write(`${JSON.stringify({ error: failure.message })}\n`);
    process.exit(failure.exitCode);
  },
);
