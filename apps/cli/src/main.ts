#!/usr/bin/env node
import { commandHelp, describeFailure, groupHelp, parseCommandLine, USAGE } from './commands.js';
import { loadConfig } from './config.js';
import { mark, phases } from './phases.js';
import { formatTable, tableRows } from './table.js';

// Only the command table is loaded up front. What a command needs (compose.ts with kysely, pg and
// graphile-worker; start.ts with the API and worker; winston; the templates) is imported when it
// runs: loading all of it took most of a `--help` or `templates` call (docs/cli.md, "Speed").

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function main(argv: string[]): Promise<number> {
  mark('command table loaded');
  const { command, values, help, group } = parseCommandLine(argv);
  if (help || !command) {
    process.stdout.write(`${command ? commandHelp(command) : group ? groupHelp(group) : USAGE}\n`);
    return 0;
  }
  if (command.name === 'templates') {
    const { listTemplates } = await import('@inntak/templates');
    print(listTemplates());
    return 0;
  }
  const config = loadConfig();
  mark('settings read');
  if (command.name === 'token') {
    const { devToken } = await import('./dev-token.js');
    print(await devToken(config, values));
    return 0;
  }
  const { default: winston } = await import('winston');
  // stdout is for the JSON answer; every log line goes to stderr (but `start` is a server).
  const logger = winston.createLogger({
    level: config.logLevel,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    defaultMeta: { service: 'inntak-cli' },
    transports: [new winston.transports.Console(command.name === 'start' ? {} : { stderrLevels: ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] })],
  });
  if (command.name === 'start') return (await import('./start.js')).startAll(config, logger);
  mark('logger made');

  const { migrate, openServices, resolveDatabase } = await import('./compose.js');
  mark('modules loaded');

  const database = await resolveDatabase(config, logger);
  mark('database answered');
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
        const answer = await command.run(values, context);
        mark('command ran');
        const rows = values.table === true ? tableRows(answer) : undefined;
        if (rows) process.stdout.write(`${formatTable(rows)}\n`);
        else print(answer);
      }
      return 0;
    } finally {
      await close();
    }
  } finally {
    await database.release();
    mark('database closed');
    logger.debug('phases', { phases: phases() });
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
