/**
 * The first start of a self-hosted service: `switchyard serve` (what `npm start` runs) as a child process with the
 * shipped example config and a data dir of its own. Promotions are off, registration is by invite, no host named
 * `example` is ever looked up or connected to (a preloaded recorder logs every lookup and connection), and the log
 * has one warn line for each feature the configuration leaves off, plus where the console and dashboard are.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, freePort } from '../billing/processes.js';
import { tempDir } from '../helpers/databases.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const EXAMPLE = path.join(root, 'config', 'switchyard.example.json');

interface LogLine {
  level: number;
  msg: string;
  feature?: string;
}

describe('the first start with the example config', () => {
  const dataDir = tempDir('switchyard-first-start-');
  const connectionsFile = path.join(dataDir, '..', `${path.basename(dataDir)}-connections.jsonl`);
  let child: ChildProcess;
  let output = '';
  let base: string;

  beforeAll(async () => {
    ensureBuilt();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const placeholders = [...fs.readFileSync(EXAMPLE, 'utf8').matchAll(/\$\{([A-Z_][A-Z0-9_]*)\}/g)].map((match) => match[1]!);
    child = spawn(
      process.execPath,
      ['--import', path.join(root, 'test', 'fixtures', 'record-connections.mjs'), path.join(root, 'dist', 'src', 'cli.js'), 'serve'],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          ...Object.fromEntries(placeholders.map((name) => [name, `value-of-${name}`])),
          HOST: '127.0.0.1',
          PORT: String(port),
          SWITCHYARD_DATA_DIR: dataDir,
          SWITCHYARD_CONFIG: EXAMPLE,
          RECORD_CONNECTIONS_FILE: connectionsFile,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout!.on('data', (chunk) => (output += String(chunk)));
    child.stderr!.on('data', (chunk) => (output += String(chunk)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
      const check = () => {
        if (output.includes('switchyard listening')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', check);
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
    });
  }, 240_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  const lines = (): LogLine[] =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);

  it('logs one warn line for every feature that is off, and where the console and dashboard are', () => {
    const off = lines()
      .filter((line) => line.level === 40 && line.feature !== undefined)
      .map((line) => line.feature);
    expect(off.sort()).toEqual(
      [
        'mail',
        'card payments',
        'crypto payments',
        'identity-provider sign-in',
        'promotion: daily check-in',
        'promotion: spin wheel',
        'promotion: share credit',
        'promotion: raffle',
        'promotion: referral share',
        'chat bot',
        'ad-network conversions',
        'open registration',
      ].sort(),
    );
    const mail = lines().find((line) => line.feature === 'mail')!;
    expect(mail.msg).toContain('outbox');
    const messages = lines().map((line) => line.msg);
    expect(messages).toContain(`customer dashboard: ${base}/dashboard.html`);
    expect(messages.find((msg) => msg.startsWith(`operator console: ${base}/admin.html`))).toContain(path.join(dataDir, 'operator-token'));
  });

  it('registration is by invite, promotions are off, the favicon is there, and no example host is contacted', async () => {
    const options = await (await fetch(`${base}/api/v1/auth/options`)).json();
    expect(options.registration).toBe('invite');
    const json = { 'content-type': 'application/json' };
    const uninvited = await fetch(`${base}/api/v1/customer/register`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'first@customer.test', password: 'a long password' }),
    });
    expect(uninvited.status).toBe(403);

    const operator = { authorization: `Bearer ${fs.readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim()}`, ...json };
    const invite = await (
      await fetch(`${base}/api/admin/invites`, {
        method: 'POST',
        headers: operator,
        body: JSON.stringify({ email: 'first@customer.test' }),
      })
    ).json();
    expect(invite.delivery).toBe('outbox');
    const registered = await fetch(`${base}/api/v1/customer/register`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'first@customer.test', password: 'a long password', invite: /#invite=([\w-]+)/.exec(invite.link)![1] }),
    });
    expect(registered.status).toBe(201);
    const customer = { authorization: `Bearer ${(await registered.json()).api_key}` };
    for (const url of ['/api/v1/daily-checkin', '/api/v1/spin-wheel', '/api/v1/share-credit', '/api/v1/raffle']) {
      const answer = await fetch(`${base}${url}`, { headers: customer });
      expect(answer.status, url).toBe(200);
      expect((await answer.json()).enabled, url).toBe(false);
    }
    const claim = await fetch(`${base}/api/v1/daily-checkin/claim`, { method: 'POST', headers: { ...customer, ...json }, body: '{}' });
    expect(claim.status).toBeGreaterThanOrEqual(400);

    const favicon = await fetch(`${base}/favicon.ico`);
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get('content-type')).toBe('image/x-icon');

    // The regions answer probes this service itself; then the recorder's file says where the process went.
    const regions = await (await fetch(`${base}/api/v1/status/regions`)).json();
    expect(regions.regions).toMatchObject([{ id: 'local', api_base_url: base, available: true }]);
    const recorded = fs
      .readFileSync(connectionsFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; host: string; port?: number });
    expect(recorded).toContainEqual(expect.objectContaining({ kind: 'connect', host: '127.0.0.1', port: Number(new URL(base).port) }));
    expect(recorded.filter((entry) => /example/i.test(entry.host))).toEqual([]);
  });
});
