/**
 * Service child processes for the multi-process and crash tests: `node dist/src/cli.js serve` (built first when
 * the sources are newer), a free loopback port, and readiness by polling `/readyz`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { STATIC_TOKEN, TEST_SECRET } from '../helpers/context.js';

const root = path.resolve(import.meta.dirname, '..', '..');
export const cliPath = path.join(root, 'dist', 'src', 'cli.js');

function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMs(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds dist when it is missing or older than src (type errors elsewhere do not stop the emit). */
export function ensureBuilt(): void {
  const builtMs = fs.existsSync(cliPath) ? fs.statSync(cliPath).mtimeMs : 0;
  if (builtMs > newestSourceMs(path.join(root, 'src'))) return;
  spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.json')], {
    stdio: 'ignore',
  });
  if (!fs.existsSync(cliPath)) throw new Error('build did not produce dist/src/cli.js');
  fs.utimesSync(cliPath, new Date(), new Date());
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  output: string[];
  /** SIGKILL: no shutdown hook runs. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceProcessOptions {
  dataDir: string;
  configPath: string;
  databaseUrl?: string;
  port?: number;
  /** More environment (e.g. REDIS_URL). */
  env?: NodeJS.ProcessEnv;
  /** The built cli to run (default this checkout's dist). */
  cli?: string;
  logLevel?: string;
  /** Readiness path polled until 200 (default /readyz). */
  readyPath?: string;
  startTimeoutMs?: number;
  /** Names the process in start errors. */
  name?: string;
}

export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(port),
    HOST: '127.0.0.1',
    SWITCHYARD_DATA_DIR: options.dataDir,
    SWITCHYARD_CONFIG: options.configPath,
    SWITCHYARD_STATIC_TOKEN: STATIC_TOKEN,
    SWITCHYARD_SECRET: TEST_SECRET,
    SWITCHYARD_LOG_LEVEL: options.logLevel ?? 'warn',
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  };
  const child = spawn(process.execPath, [options.cli ?? cliPath, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout!.on('data', (chunk) => output.push(String(chunk)));
  child.stderr!.on('data', (chunk) => output.push(String(chunk)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const name = options.name ?? 'service';
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited during start: ${output.join('')}`);
    const ready = await fetch(`${url}${options.readyPath ?? '/readyz'}`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`${name} did not become ready: ${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
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
