/**
 * A start that fails after the services were built (here: the port is taken) closes them again: the process has
 * nothing left that keeps it alive (Redis connections, ledger worker, timers) and ends by itself.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATIC_TOKEN, TEST_SECRET } from '../helpers/context.js';
import { ensureBuilt } from '../billing/processes.js';

const root = path.resolve(import.meta.dirname, '..', '..');
let blocker: net.Server;
let port: number;

beforeAll(async () => {
  ensureBuilt();
  blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  port = (blocker.address() as net.AddressInfo).port;
}, 240_000);
afterAll(async () => new Promise<void>((resolve) => blocker.close(() => resolve())));

describe('a failed start', () => {
  it('closes what it started, so the process ends on its own', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-failed-start-'));
    const script = `
      const { startService } = await import(${JSON.stringify(path.join(root, 'dist', 'src', 'main.js'))});
      const { loadConfig } = await import(${JSON.stringify(path.join(root, 'dist', 'src', 'config', 'load-config.js'))});
      try {
        await startService(loadConfig(), { port: ${port} });
        console.log('STARTED');
      } catch (error) {
        console.log('FAILED ' + error.code);
      }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        HOST: '127.0.0.1',
        SWITCHYARD_DATA_DIR: dataDir,
        SWITCHYARD_STATIC_TOKEN: STATIC_TOKEN,
        SWITCHYARD_SECRET: TEST_SECRET,
        SWITCHYARD_LOG_LEVEL: 'silent',
        REDIS_URL: 'redis://127.0.0.1:6379',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    const ended = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), 20_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    if (ended === null) child.kill('SIGKILL');
    expect(output).toContain('FAILED EADDRINUSE');
    expect(ended, `the process kept running after the failed start: ${output}`).toBe(0);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
