#!/usr/bin/env node
/**
 * The `switchyard` command line: `serve`, `migrate`, `keys create --customer <id|email> | --operator`.
 * `migrate` and `keys create` open only the database (no domain services start), so they are safe to run next
 * to a running service.
 */
import { KeyRepository } from './accounts/key-repository.js';
import { normalizeEmail } from './accounts/customer-service.js';
import { ConfigError } from './config/env.js';
import { loadConfig } from './config/load-config.js';
import { systemClock } from './kernel/clock.js';
import { installSignalHandlers, startService } from './main.js';
import { openMigratedStorage } from './services.js';

const USAGE = `usage: switchyard <command>
  serve                                   start the HTTP service (runs migrations first)
  migrate                                 apply pending database migrations and exit
  keys create --operator [--name N]       issue a managed operator key (printed once)
  keys create --customer <id|email> [--name N]
                                          issue a managed key for a customer (printed once)`;

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  if (index < 0) return undefined;
  const value = args[index + 1];
  if (value === undefined || value.startsWith('--')) throw new ConfigError(`${name} needs a value`);
  return value;
}

async function keysCreate(args: string[]): Promise<void> {
  const config = loadConfig();
  const name = option(args, '--name') ?? null;
  const customer = option(args, '--customer');
  if (args.includes('--operator') === (customer !== undefined)) {
    throw new ConfigError('keys create needs either --operator or --customer <id|email>');
  }
  const storage = await openMigratedStorage(config);
  try {
    const keys = new KeyRepository(config.secret, systemClock);
    if (customer === undefined) {
      const issued = await keys.issue(storage.db, { customerId: null, kind: 'managed', role: 'operator', name });
      process.stdout.write(`${JSON.stringify({ id: issued.row.id, role: 'operator', key: issued.plaintext })}\n`);
      return;
    }
    const byId = /^\d+$/.test(customer);
    const row = await storage.db
      .selectFrom('customers')
      .select('id')
      .where(byId ? 'id' : 'email', '=', byId ? Number(customer) : normalizeEmail(customer))
      .executeTakeFirst();
    if (!row) throw new ConfigError(`no customer ${customer}`);
    const issued = await keys.issue(storage.db, { customerId: row.id, kind: 'managed', role: 'customer', name });
    process.stdout.write(`${JSON.stringify({ id: issued.row.id, customer_id: row.id, role: 'customer', key: issued.plaintext })}\n`);
  } finally {
    await storage.close();
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
      const storage = await openMigratedStorage(loadConfig());
      await storage.close();
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
