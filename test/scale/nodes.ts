/**
 * Service nodes for the scale-out tests: `node dist/src/cli.js serve` child processes sharing one PostgreSQL
 * database (a fresh one per run), one Redis (a key prefix of the run's own) and one data dir, each with its
 * own port and node id.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createStorage } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { randomBase62 } from '../../src/kernel/ids.js';
import { TEST_DATABASE_URL, type TestStorage } from '../helpers/databases.js';
import { startServiceProcess, type ServiceProcess } from '../billing/processes.js';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function adminQuery(text: string, adminUrl = TEST_DATABASE_URL): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A new PostgreSQL database (migrated), dropped by `destroy`. */
export async function freshDatabase(prefix: string, adminUrl = TEST_DATABASE_URL): Promise<TestStorage> {
  const name = `${prefix}_${randomBase62(10).toLowerCase()}`;
  await adminQuery(`create database ${name}`, adminUrl);
  const url = new URL(adminUrl!);
  url.pathname = `/${name}`;
  const storage = await createStorage({ databaseUrl: url.toString() });
  await migrateToLatest(storage.db);
  return Object.assign(Object.create(storage), storage, {
    location: { databaseUrl: url.toString() },
    async destroy() {
      await storage.close().catch(() => undefined);
      await adminQuery(`drop database if exists ${name} with (force)`, adminUrl);
    },
  }) as TestStorage;
}

export interface Node extends ServiceProcess {
  id: string;
}

/** One `serve` node with scale-out on: its own port and config file, the shared database, Redis and data dir. */
export async function startNode(options: { id: string; dataDir: string; config: Record<string, unknown>; databaseUrl: string; redisUrl?: string; cli?: string; logLevel?: string }): Promise<Node> {
  const configPath = path.join(options.dataDir, `config-${options.id}.json`);
  const config = { ...options.config, scaleOut: { ...(options.config.scaleOut as object), nodeId: options.id } };
  fs.writeFileSync(configPath, JSON.stringify(config));
  const started = await startServiceProcess({
    dataDir: options.dataDir,
    configPath,
    databaseUrl: options.databaseUrl,
    env: { REDIS_URL: options.redisUrl ?? REDIS_URL },
    cli: options.cli,
    logLevel: options.logLevel,
    readyPath: '/health/ready',
    startTimeoutMs: 60_000,
    name: `node ${options.id}`,
  });
  return Object.assign(started, { id: options.id });
}
