/**
 * Service nodes for the scale-out tests: `node dist/src/cli.js serve` child processes sharing one PostgreSQL
 * database (a fresh one per run), one Redis (a key prefix of the run's own) and one data dir, each with its
 * own port and node id.
 */
import fs from 'node:fs';
import path from 'node:path';
export { freshDatabase } from '../helpers/databases.js';
import { startServiceProcess, type ServiceProcess } from '../billing/processes.js';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Node extends ServiceProcess {
  id: string;
}

/** One `serve` node with scale-out on: its own port and config file, the shared database, Redis and data dir. */
export async function startNode(options: {
  id: string;
  dataDir: string;
  config: Record<string, unknown>;
  databaseUrl: string;
  redisUrl?: string;
  cli?: string;
  logLevel?: string;
}): Promise<Node> {
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
