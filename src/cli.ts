#!/usr/bin/env node
/**
 * The `switchyard` command line: `serve`, `migrate`, `keys create --customer <id|email> | --operator`.
 */
import { ConfigError } from './config/env.js';
import { loadConfig } from './config/load-config.js';
import { installSignalHandlers, startService } from './main.js';
import { createServices } from './services.js';
import { createLogger } from './services.js';

const USAGE = `usage: switchyard <command>
  serve                                   start the HTTP service (runs migrations first)
  migrate                                 apply pending database migrations and exit
  keys create --operator [--name N]       issue a managed operator key (printed once)
  keys create --customer <id|email> [--name N]
                                          issue a managed key for a customer (printed once)`;

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

async function keysCreate(args: string[]): Promise<void> {
  const config = loadConfig();
  const services = await createServices(config, { logger: createLogger('warn') });
  try {
    const name = option(args, '--name') ?? null;
    if (args.includes('--operator')) {
      const issued = await services.keys.issue(services.storage.db, { customerId: null, kind: 'managed', role: 'operator', name });
      process.stdout.write(`${JSON.stringify({ id: issued.row.id, role: 'operator', key: issued.plaintext })}\n`);
      return;
    }
    const who = option(args, '--customer');
    if (!who) throw new ConfigError('keys create needs --operator or --customer <id|email>');
    const customer = await services.storage.db
      .selectFrom('customers')
      .select('id')
      .where(/^\d+$/.test(who) ? 'id' : 'email', '=', /^\d+$/.test(who) ? Number(who) : who.toLowerCase())
      .executeTakeFirst();
    if (!customer) throw new ConfigError(`no customer ${who}`);
    const issued = await services.keys.issue(services.storage.db, { customerId: customer.id, kind: 'managed', role: 'customer', name });
    process.stdout.write(`${JSON.stringify({ id: issued.row.id, customer_id: customer.id, role: 'customer', key: issued.plaintext })}\n`);
  } finally {
    await services.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  switch (command) {
    case 'serve':
    case undefined: {
      const running = await startService();
      installSignalHandlers(running);
      return;
    }
    case 'migrate': {
      const services = await createServices(loadConfig(), { logger: createLogger('warn') });
      await services.close();
      process.stdout.write('migrations applied\n');
      return;
    }
    case 'keys':
      if (sub === 'create') return keysCreate(rest);
      break;
    default:
      break;
  }
  process.stderr.write(`${USAGE}\n`);
  process.exitCode = 2;
}

main(process.argv.slice(2)).catch((error) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`switchyard: ${error.message}\n`);
  } else {
    process.stderr.write(`switchyard: ${(error as Error).stack ?? error}\n`);
  }
  process.exit(1);
});
