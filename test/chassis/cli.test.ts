/**
 * The `switchyard` command line as operators run it: the built `dist/src/cli.js` in a child process against
 * a temporary data dir (SQLite). The suite builds first when dist is missing or older than the sources.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/databases.js';
import { solvedHumanCheckAt } from '../helpers/human-check.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/src/cli.js');

/** The child's environment: this process's, without any Switchyard setting that could leak into it. */
function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(SWITCHYARD_|DATABASE_URL$|REDIS_URL$|PORT$|HOST$|TEST_DATABASE_URL$)/.test(name)) env[name] = value;
  }
  return { ...env, SWITCHYARD_LOG_LEVEL: 'info', ...extra };
}

function runCli(args: string[], env: Record<string, string>): { status: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(process.execPath, [cli, ...args], {
      env: cliEnv(env),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    return { status: 0, stdout, stderr: '' };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { status: failed.status, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts `switchyard serve` and resolves once it logs that it listens. */
async function serve(env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [cli, 'serve'], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 30_000);
    const check = () => {
      if (output.includes('switchyard listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${output}`));
    });
  });
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('switchyard command line', () => {
  const dataDir = tempDir('switchyard-cli-');
  const children: ChildProcess[] = [];

  beforeAll(() => {
    try {
      execFileSync(process.execPath, [path.join(root, 'scripts/build-if-needed.mjs')], { cwd: root, stdio: 'pipe', timeout: 170_000 });
    } catch (error) {
      // tsc still emits when some file has type errors; `npm run build` (and so CI) reports those. This suite
      // only needs the emitted JavaScript.
      if (!fs.existsSync(cli)) throw error;
      console.warn(`build reported errors; testing the emitted dist:\n${String((error as { stdout?: Buffer }).stdout ?? '')}`);
    }
  }, 180_000);
  afterAll(async () => {
    for (const child of children) await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates an operator key that then authenticates against the served API', async () => {
    const created = runCli(['keys', 'create', '--operator', '--name', 'ops laptop'], { SWITCHYARD_DATA_DIR: dataDir });
    expect(created.status, created.stderr).toBe(0);
    const printed = JSON.parse(created.stdout.trim());
    expect(printed).toMatchObject({ role: 'operator', key: expect.stringMatching(/^sym_/) });

    const port = await freePort();
    const server = await serve({ SWITCHYARD_DATA_DIR: dataDir, PORT: String(port) });
    children.push(server.child);
    const base = `http://127.0.0.1:${port}`;
    const withKey = await fetch(`${base}/api/admin/customers`, { headers: { authorization: `Bearer ${printed.key}` } });
    expect(withKey.status).toBe(200);
    const without = await fetch(`${base}/api/admin/customers`);
    expect(without.status).toBe(401);
    const regions = await fetch(`${base}/api/v1/status/regions`);
    expect(regions.status).toBe(200);
    // Without configured regions the one region is this service itself.
    expect((await regions.json()).regions).toMatchObject([{ id: 'local', api_base_url: `http://127.0.0.1:${port}`, available: true }]);

    // Without SWITCHYARD_STATIC_TOKEN the first start wrote an operator token file and logged where, not what.
    const tokenFile = path.join(dataDir, 'operator-token');
    expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
    const bootstrapToken = fs.readFileSync(tokenFile, 'utf8').trim();
    expect(server.output()).toContain(tokenFile);
    expect(server.output()).not.toContain(bootstrapToken);
    expect(server.output()).not.toContain(printed.key);
    const viaBootstrap = await fetch(`${base}/api/admin/customers`, { headers: { authorization: `Bearer ${bootstrapToken}` } });
    expect(viaBootstrap.status).toBe(200);

    // Registration is by invite by default: a sign-up without one is refused, the operator's invite lets it in.
    const signUp = (body: Record<string, string>) =>
      fetch(`${base}/api/v1/customer/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'cli-customer@example.test', password: 'long enough password', ...body }),
      });
    const uninvited = await signUp({ humanCheck: await solvedHumanCheckAt(base) });
    expect(uninvited.status).toBe(403);
    expect((await uninvited.json()).detail).toContain('invitation');
    const invited = await fetch(`${base}/api/admin/invites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bootstrapToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'cli-customer@example.test' }),
    });
    expect(invited.status).toBe(201);
    const register = await signUp({ invite: /#invite=([\w-]+)/.exec((await invited.json()).link)![1]! });
    expect(register.status).toBe(201);
    // A key for a customer, issued while the service runs, works at once.
    const customerKey = runCli(['keys', 'create', '--customer', 'CLI-Customer@example.test'], { SWITCHYARD_DATA_DIR: dataDir });
    expect(customerKey.status, customerKey.stderr).toBe(0);
    const me = await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${JSON.parse(customerKey.stdout).key}` } });
    expect(me.status).toBe(200);
    expect((await me.json()).customer.email).toBe('cli-customer@example.test');

    expect(await stop(server.child)).toBe(0);
  });

  it('stops with a message naming a bad environment variable or config field', async () => {
    const badPort = runCli(['serve'], { SWITCHYARD_DATA_DIR: dataDir, PORT: 'eighty' });
    expect(badPort.status).toBe(1);
    expect(badPort.stderr).toContain('PORT');
    const configFile = path.join(dataDir, 'bad-config.json');
    fs.writeFileSync(configFile, JSON.stringify({ releases: { cli: { version: 'latest' } } }));
    const badConfig = runCli(['migrate'], { SWITCHYARD_DATA_DIR: dataDir, SWITCHYARD_CONFIG: configFile });
    expect(badConfig.status).toBe(1);
    expect(badConfig.stderr).toContain('releases.cli.version');
    expect(badConfig.stderr).not.toMatch(/\n\s+at /);
  });

  it('migrates, refuses an unknown customer and explains its usage', () => {
    const migrated = runCli(['migrate'], { SWITCHYARD_DATA_DIR: dataDir });
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain('migrations applied');
    const unknown = runCli(['keys', 'create', '--customer', 'nobody@example.test'], { SWITCHYARD_DATA_DIR: dataDir });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('nobody@example.test');
    const usage = runCli(['frobnicate'], { SWITCHYARD_DATA_DIR: dataDir });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('keys create --operator');
  });
});
