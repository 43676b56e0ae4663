/**
 * Scale-out: billed gateway requests per second and agent turns per second with one node, then with two nodes
 * (`scaleOut` on, one PostgreSQL database, one Redis, one data dir) in the same run. Both nodes, the scripted
 * upstream and the load generator share the machine; needs PostgreSQL (BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL, else the local test database) and Redis (REDIS_URL, else the local one).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import { startModelUpstream } from '../test/fakes/model-upstream.js';
import { STATIC_TOKEN } from '../test/helpers/context.js';
import { freshDatabase, startNode, type Node } from '../test/scale/nodes.js';
import { loadTest, round, type BenchReport } from './harness.js';

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONNECTIONS = 16;
const SECONDS = 5;
const CUSTOMERS = 4;
const TURNS_EACH = 5;
const cli = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'src', 'cli.js');
const operator = { authorization: `Bearer ${STATIC_TOKEN}`, 'content-type': 'application/json' };

async function json(response: Response, expected: number): Promise<any> {
  if (response.status !== expected) throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function fundedCustomer(node: Node, name: string): Promise<string> {
  const created = await json(
    await fetch(`${node.url}/api/admin/customers`, {
      method: 'POST',
      headers: operator,
      body: JSON.stringify({ email: `${name}@bench.example` }),
    }),
    201,
  );
  const customerId = created.customer?.id ?? created.id;
  const token = created.api_key ?? created.system_token ?? created.key;
  await json(
    await fetch(`${node.url}/api/admin/customers/${customerId}/wallet/adjust`, {
      method: 'POST',
      headers: { ...operator, 'idempotency-key': `bench-${name}` },
      body: JSON.stringify({ amount_micros: 1_000_000_000, reason: 'nodes bench' }),
    }),
    200,
  );
  return token as string;
}

/** Billed chat completions against every node at once for SECONDS; connections split evenly. */
async function gatewayRate(nodes: Node[], token: string): Promise<{ rps: number; non2xx: number }> {
  const results = await Promise.all(
    nodes.map((node) =>
      loadTest({
        url: `${node.url}/v1/chat/completions`,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'power-ai', messages: [{ role: 'user', content: 'bench' }], max_tokens: 20 }),
        connections: CONNECTIONS / nodes.length,
        durationSeconds: SECONDS,
        warmupSeconds: 1,
      }),
    ),
  );
  return {
    rps: results.reduce((sum, result) => sum + result.requestsPerSecond, 0),
    non2xx: results.reduce((sum, result) => sum + result.non2xx, 0),
  };
}

/** Waits for turn/completed of each started turn on the project's event stream (read from `node`). */
function completions(node: Node, token: string, projectId: string, signal: AbortSignal): (turnId: string) => Promise<void> {
  const waiting = new Map<string, () => void>();
  const done = new Set<string>();
  void (async () => {
    const response = await fetch(`${node.url}/api/v1/projects/${projectId}/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal,
    });
    const parser = createParser({
      onEvent: (event) => {
        if (event.event !== 'turn/completed') return;
        const turnId = (JSON.parse(event.data) as { turn: { id: string } }).turn.id;
        done.add(turnId);
        waiting.get(turnId)?.();
      },
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // aborted at the end
    }
  })();
  return (turnId) => (done.has(turnId) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(turnId, resolve)));
}

/**
 * CUSTOMERS customers, one project each, opened on the node `home(index)`; each runs TURNS_EACH turns in a row,
 * sent to `via(index, turn)` (the other node forwards to the holder), all customers at once.
 */
async function turnRate(nodes: Node[], label: string): Promise<number> {
  const abort = new AbortController();
  try {
    const runs = await Promise.all(
      Array.from({ length: CUSTOMERS }, async (_, index) => {
        const home = nodes[index % nodes.length]!;
        const token = await fundedCustomer(home, `${label}-${index}-${Date.now()}`);
        const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
        const project = await json(await fetch(`${home.url}/api/v1/projects`, { method: 'POST', headers, body: '{}' }), 201);
        await json(await fetch(`${home.url}/api/v1/projects/${project.id}/open`, { method: 'POST', headers, body: '{}' }), 200);
        const completed = completions(home, token, project.id, abort.signal);
        const turn = async (node: Node) => {
          const started = await json(
            await fetch(`${node.url}/api/v1/projects/${project.id}/turns`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ input: 'bench turn' }),
            }),
            202,
          );
          await completed(started.turn_id);
        };
        await turn(home); // warm-up: the app-server is up and the thread loaded
        return { turn, index };
      }),
    );
    const started = performance.now();
    await Promise.all(
      runs.map(async ({ turn, index }) => {
        for (let count = 0; count < TURNS_EACH; count += 1) await turn(nodes[(index + count) % nodes.length]!);
      }),
    );
    return (CUSTOMERS * TURNS_EACH) / ((performance.now() - started) / 1000);
  } finally {
    abort.abort();
  }
}

/** RSS (MB) of each codex app-server process below the node's process (one per customer with a session). */
function appServerRssMb(node: Node): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,rss=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), rssKb: Number(match[3]), args: match[4]! }));
  const below = new Set([node.child.pid!]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows)
      if (below.has(row.ppid) && !below.has(row.pid)) {
        below.add(row.pid);
        grew = true;
      }
  }
  return rows
    .filter((row) => below.has(row.pid) && /app-server/.test(row.args) && !/bwrap/.test(row.args.split(' ')[0]!))
    .map((row) => row.rssKb / 1024);
}

export default async function nodesBench(report: BenchReport): Promise<void> {
  report.section('Scale-out: one node against two nodes (PostgreSQL + Redis)');
  let storage: Awaited<ReturnType<typeof freshDatabase>>;
  try {
    storage = await freshDatabase('switchyard_bench_nodes', ADMIN_URL);
  } catch (error) {
    report.line(
      `skipped: no PostgreSQL at ${ADMIN_URL.replace(/\/\/[^@]*@/, '//…@')} (${(error as Error).message}); set BENCH_DATABASE_URL`,
    );
    return;
  }
  const upstream = await startModelUpstream({ defaultReply: { kind: 'text', text: 'Scripted answer for the bench.' } });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-nodes-bench-'));
  const config = {
    providers: [{ id: 'scripted', kind: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-bench' }],
    models: [
      { id: 'scripted-coder', provider: 'scripted', upstreamModel: 'scripted-model', capabilities: { responsesApi: true, tools: true } },
    ],
    aliases: { 'power-ai': 'scripted-coder' },
    rateCards: { standard: { inputMicrosPerMillion: 4_000_000, outputMicrosPerMillion: 24_000_000 } },
    regions: [],
    billing: { redisPrefix: `switchyard:bench:${Date.now()}:` },
    // The bench machine's PostgreSQL (trust) and Redis (no password) let anyone in: a development set-up.
    scaleOut: { enabled: true, allowUnauthenticatedStores: true },
  };
  const nodes: Node[] = [];
  try {
    const databaseUrl = storage.location.databaseUrl!;
    nodes.push(await startNode({ id: 'bench-a', dataDir, config, databaseUrl, redisUrl: REDIS, cli, logLevel: 'error' }));
    const gatewayToken = await fundedCustomer(nodes[0]!, `gateway-${Date.now()}`);
    const oneGateway = await gatewayRate(nodes, gatewayToken);
    const oneTurns = await turnRate(nodes, 'one');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idleRss = appServerRssMb(nodes[0]!).sort((x, y) => x - y);
    nodes.push(await startNode({ id: 'bench-b', dataDir, config, databaseUrl, redisUrl: REDIS, cli, logLevel: 'error' }));
    const twoGateway = await gatewayRate(nodes, gatewayToken);
    const twoTurns = await turnRate(nodes, 'two');
    const held = await storage.db
      .selectFrom('billing_calls')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'open')
      .executeTakeFirst();
    report.line(
      `${CONNECTIONS} connections for ${SECONDS} s of billed \`POST /v1/chat/completions\` (split evenly over the nodes); ${CUSTOMERS} customers × ${TURNS_EACH} agent turns, each customer's turns sent to the nodes in turn (the node without the lease forwards to the holder).`,
    );
    report.table([
      { nodes: 1, 'billed gateway req/s': round(oneGateway.rps), 'non-2xx': oneGateway.non2xx, 'agent turns/s': round(oneTurns, 2) },
      { nodes: 2, 'billed gateway req/s': round(twoGateway.rps), 'non-2xx': twoGateway.non2xx, 'agent turns/s': round(twoTurns, 2) },
    ]);
    if (idleRss.length > 0) {
      report.line(
        `idle app-server RSS after ${TURNS_EACH + 1} short turns: ${idleRss.map((mb) => round(mb)).join(', ')} MB (${idleRss.length} processes, median ${round(idleRss[Math.floor(idleRss.length / 2)]!)} MB).`,
      );
    }
    report.line(
      `two nodes / one node: gateway ${round(twoGateway.rps / oneGateway.rps, 2)}, turns ${round(twoTurns / oneTurns, 2)}; holds left open after the runs: ${Number(held?.n ?? 0)}. ` +
        `On ${os.cpus().length} cores the nodes, the upstream and the load generator share the same CPUs, so a second node cannot add throughput here: the ratio prices what a second node costs (cross-node locks, Redis round trips, forwarded turns).`,
    );
  } finally {
    await Promise.all(nodes.map((node) => node.stop()));
    await upstream.close();
    await storage.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
