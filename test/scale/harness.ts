/**
 * Two-node cluster for the scale-out tests: the scripted model upstream, a fresh PostgreSQL database, an
 * in-process context that never listens (the test's own hands on the database) and two `serve` processes; and a
 * private `redis-server` a test may stop and start again without disturbing other users of the machine's Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBase62 } from '../../src/kernel/ids.js';
import { gatewayConfig } from '../agent/agent-harness.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { tempDir } from '../helpers/databases.js';
import { ensureBuilt, freePort } from '../billing/processes.js';
import { freshDatabase, startNode, type Node } from './nodes.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A `redis-server` of the test's own on a free port, without persistence. */
export class PrivateRedis {
  private child: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    private readonly args: string[],
  ) {}

  /** `args`: more redis-server options (e.g. `--requirepass`). */
  static async start(args: string[] = []): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort(), args);
    await redis.restart();
    return redis;
  }

  get running(): boolean {
    return this.child !== null;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server again on the same port (nothing of before survives: no persistence). */
  async restart(): Promise<void> {
    if (this.child) throw new Error('redis-server is already running');
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...this.args],
      {
        stdio: 'ignore',
      },
    );
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (!(await accepts(this.port))) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('redis-server did not start');
      await sleep(25);
    }
  }

  /** SIGKILL: the connections of the nodes break at once. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    if (child.exitCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    }
  }
}

export interface TwoNodes {
  upstream: ModelUpstream;
  admin: TestContext;
  a: Node;
  b: Node;
  /** Starts a node of this cluster again under its id (after it stopped), on a new port. */
  startAgain(node: Node): Promise<Node>;
  close(): Promise<void>;
}

/**
 * Starts two nodes with `scaleOut` on (lease `leaseTtlMs`) sharing a fresh database, one data dir and `redisUrl`.
 * `config` is merged over the gateway config of the scripted upstream (its `models` replace the default list).
 */
export async function startTwoNodes(
  options: { redisUrl?: string; leaseTtlMs?: number; config?: Record<string, unknown> } = {},
): Promise<TwoNodes> {
  ensureBuilt();
  const upstream = await startModelUpstream();
  const storage = await freshDatabase('switchyard_scale');
  const shared = {
    ...gatewayConfig(upstream.url),
    agent: { requestTimeoutMs: 20_000, stopGraceMs: 500, restartBackoffInitialMs: 50 },
    ...options.config,
  };
  const admin = await createTestContext({ config: shared as never, storage });
  const dataDir = tempDir('switchyard-scale-');
  const config = {
    ...shared,
    // Test files run side by side with the same uid range: each cluster claims it in its own folder (one host's
    // deployments share /run/switchyard/uid-ranges by default, and an overlap stops the agents of the later one).
    agent: {
      ...(shared.agent as Record<string, unknown>),
      limits: { uidClaimDir: path.join(dataDir, 'uid-ranges'), ...((shared.agent as { limits?: object }).limits ?? {}) },
    },
    regions: [],
    rateCards: admin.config.rateCards,
    billing: { redisPrefix: `switchyard:test:${randomBase62(8)}:` },
    // This machine's PostgreSQL (trust) and Redis (no password) let anyone in: a development set-up.
    scaleOut: { enabled: true, leaseTtlMs: options.leaseTtlMs ?? 3_000, allowUnauthenticatedStores: true },
  };
  const databaseUrl = storage.location.databaseUrl!;
  const common = { dataDir, config, databaseUrl, redisUrl: options.redisUrl };
  const [a, b] = await Promise.all([startNode({ id: 'node-a', ...common }), startNode({ id: 'node-b', ...common })]);
  const nodes = [a, b];
  return {
    upstream,
    admin,
    a,
    b,
    async startAgain(node) {
      const started = await startNode({ id: node.id, ...common });
      nodes.push(started);
      return started;
    },
    async close() {
      await Promise.all(nodes.map((node) => node.stop()));
      await admin.close();
      await upstream.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
