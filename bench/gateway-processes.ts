/**
 * The processes of the gateway benchmark, each in its own Node process so the load generator, the gateway and
 * the scripted upstream do not share an event loop: `upstream` runs the scripted model upstream, `gateway`
 * runs the whole service pointed at it. Each reports its URL (and the gateway a customer key) over IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { loadConfig } from '../src/config/load-config.js';
import { startService } from '../src/main.js';
import { startModelUpstream } from '../test/fakes/model-upstream.js';

export interface ChildHandle {
  process: ChildProcess;
  info: { url: string; key?: string };
  /** CPU time (user + system) the process has used so far, in microseconds. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

export type ChildRole = 'upstream' | 'gateway' | 'gateway-billed' | 'bare-proxy' | 'fastify-proxy';

/** Answers the parent's CPU-time questions (every role). */
function answerCpuQuestions(): void {
  process.on('message', (message) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      process.send!({ cpu: usage.user + usage.system });
    }
  });
}

/** Starts this file as a child in the given role and waits for its ready message. */
export function startChild(role: ChildRole, upstreamUrl?: string): Promise<ChildHandle> {
  const child = fork(fileURLToPath(import.meta.url), [role, upstreamUrl ?? ''], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${role} process exited early (${code})`)));
    child.once('message', (info) =>
      resolve({
        process: child,
        info: info as ChildHandle['info'],
        cpuMicros: () =>
          new Promise<number>((answer) => {
            const listen = (message: unknown) => {
              if (typeof message === 'object' && message !== null && 'cpu' in message) {
                child.off('message', listen);
                answer((message as { cpu: number }).cpu);
              }
            };
            child.on('message', listen);
            child.send('cpu');
          }),
        stop: () =>
          new Promise<void>((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      }),
    );
  });
}

async function runUpstream(): Promise<void> {
  const upstream = await startModelUpstream();
  process.send!({ url: upstream.url });
  process.once('SIGTERM', () => void upstream.close().then(() => process.exit(0)));
}

/**
 * The floor of any Node.js gateway on this machine: a bare `node:http` server that forwards each request to the
 * upstream through an undici pool and pipes the answer back, with no routing, authentication, parsing or billing.
 */
async function runBareProxy(upstreamUrl: string): Promise<void> {
  const upstream = new Pool(upstreamUrl, { connections: 64, pipelining: 1 });
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      upstream
        .request({ method: 'POST', path: request.url!, headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
        .then(async (answer) => {
          response.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
          for await (const chunk of answer.body) response.write(chunk);
          response.end();
        })
        .catch(() => response.destroy());
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  process.send!({ url: `http://127.0.0.1:${address.port}` });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

/**
 * The same forwarding on the service's framework: a Fastify route (JSON body parsed, answer piped back) with no
 * hooks, authentication, validation, translation or billing. Between the bare proxy and the gateway, it says how much
 * of the gateway's cost is the framework and how much is the gateway's own work.
 */
async function runFastifyProxy(upstreamUrl: string): Promise<void> {
  const upstream = new Pool(upstreamUrl, { connections: 64, pipelining: 1 });
  const app = Fastify({ logger: false });
  app.post('/v1/chat/completions', async (request, reply) => {
    const answer = await upstream.request({
      method: 'POST',
      path: request.url,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request.body),
    });
    reply.code(answer.statusCode).header('content-type', String(answer.headers['content-type'] ?? 'application/json'));
    return reply.send(answer.body);
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  process.send!({ url });
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

async function runGateway(upstreamUrl: string, billed: boolean): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-gateway-'));
  const configPath = path.join(dataDir, 'config.json');
  fs.writeFileSync(
    configPath,
    JSON.stringify({
      providers: [{ id: 'scripted', kind: 'openai', baseUrl: `${upstreamUrl}/v1` }],
      models: [
        { id: 'bench-model', provider: 'scripted', upstreamModel: 'scripted-model' },
        { id: 'bench-responses', provider: 'scripted', upstreamModel: 'scripted-model', capabilities: { responsesApi: true } },
      ],
      aliases: { 'power-ai': 'bench-model' },
      rateCards: { standard: { inputMicrosPerMillion: 4_000_000, outputMicrosPerMillion: 24_000_000 } },
      // Measured both ways: billing off (the gateway's own work) and on (how every customer call runs).
      billing: { enabled: billed },
    }),
  );
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^(SWITCHYARD_|DATABASE_URL$|REDIS_URL$|PORT$|HOST$)/.test(name)) env[name] = value;
  Object.assign(env, {
    SWITCHYARD_DATA_DIR: dataDir,
    SWITCHYARD_CONFIG: configPath,
    SWITCHYARD_STATIC_TOKEN: 'bench-operator-token-0123456789-abcdef',
    SWITCHYARD_LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
  });
  const running = await startService(loadConfig(env), { port: 0 });
  const created = await running.services.customers.create({ email: 'bench-gateway@example.test' });
  if (billed) {
    await running.services.billing.adjust({
      customerId: created.customer.id,
      amountMicros: 1_000_000_000_000,
      reason: 'benchmark funding',
      wallet: 'token',
      idempotencyKey: 'bench-funding',
    });
  }
  process.send!({ url: running.url, key: created.systemToken.key });
  process.once(
    'SIGTERM',
    () =>
      void running.stop().then(() => {
        fs.rmSync(dataDir, { recursive: true, force: true });
        process.exit(0);
      }),
  );
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const [role, upstreamUrl] = process.argv.slice(2);
  answerCpuQuestions();
  if (role === 'upstream') void runUpstream();
  else if (role === 'gateway' || role === 'gateway-billed') void runGateway(upstreamUrl!, role === 'gateway-billed');
  else if (role === 'bare-proxy') void runBareProxy(upstreamUrl!);
  else if (role === 'fastify-proxy') void runFastifyProxy(upstreamUrl!);
}
