#!/usr/bin/env node
import { commandHelp, describeFailure, groupHelp, parseCommandLine, USAGE } from './commands.js';
import { loadConfig } from './config.js';
import { mark, phases } from './phases.js';
import { stderrLogger } from './stderr-logger.js';
import { tableOf } from './table.js';

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
  if (command.name === 'start') {
    const { default: winston } = await import('winston');
    const logger = winston.createLogger({
      level: config.logLevel,
      format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
      defaultMeta: { service: 'inntak-cli' },
      transports: [new winston.transports.Console()],
    });
    return (await import('./start.js')).startAll(config, logger);
  }
  // stdout is for the JSON answer; every log line goes to stderr.
  const logger = stderrLogger(config.logLevel);
  const { migrate, openCommandDatabase } = await import('./compose.js');
  mark('modules loaded');

  const database = await openCommandDatabase(config, logger);
  mark('database answered');
  try {
    if (command.name === 'migrate') {
      print(await migrate(database.url));
      return 0;
    }
    if (command.run) {
      const context = {
        services: database.services,
        baseUrl: config.baseUrl,
        progress: (line: string) => process.stderr.write(`${line}\n`),
        log: (m: string) => logger.info(m),
      };
      const answer = await command.run(values, context);
      mark('command ran');
      const table = values.table === true ? tableOf(answer) : undefined;
      if (table !== undefined) process.stdout.write(`${table}\n`);
      else print(answer);
    }
    return 0;
  } finally {
    await database.close();
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
