/**
 * Service nodes for the scale-out tests: `node dist/src/cli.js serve` child processes sharing one PostgreSQL
 * database (a fresh one per run), one Redis (a key prefix of the run's own) and one data dir, each with its
 * own port and node id.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createStorage } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { randomBase62 } from '../../src/kernel/ids.js';
import { STATIC_TOKEN, TEST_SECRET } from '../helpers/context.js';
import { TEST_DATABASE_URL, type TestStorage } from '../helpers/databases.js';
import { cliPath, freePort } from '../billing/processes.js';

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

export interface Node {
  id: string;
  url: string;
  child: ChildProcess;
  output: string[];
  /** SIGKILL: nothing of the node's shutdown runs (its leases stay until they expire). */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export async function startNode(options: { id: string; dataDir: string; config: Record<string, unknown>; databaseUrl: string; redisUrl?: string; cli?: string; logLevel?: string }): Promise<Node> {
  const port = await freePort();
  const configPath = path.join(options.dataDir, `config-${options.id}.json`);
  const config = { ...options.config, scaleOut: { ...(options.config.scaleOut as object), nodeId: options.id } };
  fs.writeFileSync(configPath, JSON.stringify(config));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(port),
    HOST: '127.0.0.1',
    SWITCHYARD_DATA_DIR: options.dataDir,
    SWITCHYARD_CONFIG: configPath,
    SWITCHYARD_STATIC_TOKEN: STATIC_TOKEN,
    SWITCHYARD_SECRET: TEST_SECRET,
    SWITCHYARD_LOG_LEVEL: options.logLevel ?? 'warn',
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl ?? REDIS_URL,
  };
  const child = spawn(process.execPath, [options.cli ?? cliPath, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout!.on('data', (chunk) => output.push(String(chunk)));
  child.stderr!.on('data', (chunk) => output.push(String(chunk)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`node ${options.id} exited during start: ${output.join('')}`);
    if (await fetch(`${url}/health/ready`).then((response) => response.ok, () => false)) break;
    if (Date.now() > deadline) throw new Error(`node ${options.id} did not become ready: ${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    id: options.id,
    url,
    child,
    output,
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
