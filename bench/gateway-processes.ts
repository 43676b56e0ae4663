/**
 * The processes of the gateway benchmark, each in its own Node process so the load generator, the gateway and
 * the scripted upstream do not share an event loop: `upstream` runs the scripted model upstream, `gateway`
 * runs the whole service pointed at it. Each reports its URL (and the gateway a customer key) over IPC.
 * `example` runs what an operator runs: `node dist/src/cli.js serve` (what `npm start` starts) with the shipped
 * `config/switchyard.example.json`, only its providers pointed at the scripted upstream, at the default log level
 * (`example-warn`: the same at `warn`), its log lines read from a pipe as a log collector would.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
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

export type ChildRole =
  | 'upstream'
  | 'gateway'
  | 'gateway-billed'
  | 'gateway-billed-unreserved'
  | 'gateway-traced'
  | 'bare-proxy'
  | 'fastify-proxy'
  | 'otlp-sink'
  | 'example'
  | 'example-warn';

/** CPU time of this process, or of the service it started (`example`): the process that answers the calls. */
let measured: () => number = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

/** Answers the parent's CPU-time questions (every role). */
function answerCpuQuestions(): void {
  process.on('message', (message) => {
    if (message === 'cpu') process.send!({ cpu: measured() });
  });
}

/** User + system CPU of another process (all its threads), from /proc, in microseconds. */
function procCpuMicros(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Starts this file as a child in the given role and waits for its ready message; `execArgv`: Node flags of its own. */
export function startChild(role: ChildRole, upstreamUrl?: string, otlpUrl?: string, execArgv?: string[]): Promise<ChildHandle> {
  const child = fork(fileURLToPath(import.meta.url), [role, upstreamUrl ?? '', otlpUrl ?? ''], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    ...(execArgv ? { execArgv } : {}),
  });
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

/** An OTLP/HTTP receiver that reads and drops what it is sent (the trace backend of `gateway-traced`). */
async function runOtlpSink(): Promise<void> {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

/**
 * `unreserved`: credit reservations off (billing.reservations.maxMicros 0), so every call commits a hold of its own
 * (started early where the wallet's last hold allows), as before reservations; `otlpUrl`: tracing on, exporting to
 * that receiver.
 */
async function runGateway(upstreamUrl: string, billed: boolean, unreserved = false, otlpUrl?: string): Promise<void> {
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
      billing: { enabled: billed, ...(unreserved ? { reservations: { maxMicros: 0 } } : {}) },
      ...(otlpUrl ? { tracing: { endpoint: otlpUrl } } : {}),
    }),
  );
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^(SWITCHYARD_|OTEL_|DATABASE_URL$|REDIS_URL$|PORT$|HOST$)/.test(name)) env[name] = value;
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

/** Funds a customer on the example service's database (in this process, closed before the service starts). */
async function fundExampleCustomer(env: NodeJS.ProcessEnv): Promise<string> {
  const setup = await startService(loadConfig({ ...env, SWITCHYARD_LOG_LEVEL: 'warn' }), { port: 0 });
  try {
    const created = await setup.services.customers.create({ email: 'bench-example@example.test' });
    await setup.services.billing.adjust({
      customerId: created.customer.id,
      amountMicros: 1_000_000_000_000,
      reason: 'benchmark funding',
      wallet: 'token',
      idempotencyKey: 'bench-funding',
    });
    return created.systemToken.key;
  } finally {
    await setup.stop();
  }
}

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function runExample(upstreamUrl: string, logLevel: string | undefined): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-example-'));
  const example = JSON.parse(fs.readFileSync(path.join(root, 'config', 'switchyard.example.json'), 'utf8')) as {
    providers: { kind: string; baseUrl: string }[];
  };
  for (const provider of example.providers) provider.baseUrl = provider.kind === 'openai' ? `${upstreamUrl}/v1` : upstreamUrl;
  const configPath = path.join(dataDir, 'config.json');
  fs.writeFileSync(configPath, JSON.stringify(example));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  Object.assign(env, {
    SWITCHYARD_DATA_DIR: dataDir,
    SWITCHYARD_CONFIG: configPath,
    SWITCHYARD_STATIC_TOKEN: 'bench-operator-token-0123456789-abcdef',
    OPENAI_API_KEY: 'bench-openai-key',
    ANTHROPIC_API_KEY: 'bench-anthropic-key',
    HOST: '127.0.0.1',
    PORT: String(port),
    ...(logLevel ? { SWITCHYARD_LOG_LEVEL: logLevel } : {}),
  });
  const key = await fundExampleCustomer(env);
  const service = spawn(process.execPath, [path.join(root, 'dist', 'src', 'cli.js'), 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let logBytes = 0;
  service.stdout!.on('data', (chunk: Buffer) => (logBytes += chunk.length));
  measured = () => procCpuMicros(service.pid!);
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt += 1) {
    if (service.exitCode !== null) throw new Error(`the example service exited during start (${service.exitCode})`);
    if (
      await fetch(`${url}/readyz`).then(
        (answer) => answer.ok,
        () => false,
      )
    )
      break;
    if (attempt > 600) throw new Error('the example service did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  process.send!({ url, key });
  process.once('SIGTERM', () => {
    service.once('exit', () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      process.stderr.write(`example service (${logLevel ?? 'default log level'}): ${logBytes} bytes of log read\n`);
      process.exit(0);
    });
    service.kill('SIGTERM');
  });
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const [role, upstreamUrl, otlpUrl] = process.argv.slice(2);
  answerCpuQuestions();
  if (role === 'upstream') void runUpstream();
  else if (role === 'otlp-sink') void runOtlpSink();
  else if (role === 'gateway' || role === 'gateway-billed') void runGateway(upstreamUrl!, role === 'gateway-billed');
  else if (role === 'gateway-billed-unreserved') void runGateway(upstreamUrl!, true, true);
  else if (role === 'gateway-traced') void runGateway(upstreamUrl!, true, false, otlpUrl);
  else if (role === 'bare-proxy') void runBareProxy(upstreamUrl!);
  else if (role === 'fastify-proxy') void runFastifyProxy(upstreamUrl!);
  else if (role === 'example' || role === 'example-warn') void runExample(upstreamUrl!, role === 'example-warn' ? 'warn' : undefined);
}
