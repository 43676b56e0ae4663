/**
 * One process per SQLite file: the service holds an exclusive lock beside its database while it runs, so a second
 * `switchyard serve` on the same data directory stops at start with a message naming the file, a process killed with
 * SIGKILL leaves no lock behind (the kernel drops it), and services of one process share its lock.
 * These tests run on SQLite whatever the test dialect, since the lock exists only there.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices } from '../../src/services.js';
import { lockFileOf } from '../../src/storage/ledger-store/sqlite-file-lock.js';
import { openTestStorage, tempDir } from '../helpers/databases.js';
import { billingConfig, billingContext } from './helpers.js';
import { ensureBuilt, startServiceProcess } from './processes.js';

const root = path.resolve(import.meta.dirname, '..', '..');

/** Tries the service's lock from another process: 'locked' when it got it, else the SQLite error code. */
function lockedElsewhere(file: string): string {
  const script = `import SQLite from 'better-sqlite3'; const db = new SQLite(process.argv[1]); db.pragma('busy_timeout = 0'); try { db.exec('BEGIN EXCLUSIVE'); console.log('locked'); } catch (error) { console.log(error.code); }`;
  const probe = spawnSync(process.execPath, ['--input-type=module', '-e', script, lockFileOf(file)], { cwd: root, encoding: 'utf8' });
  return probe.stdout.trim();
}

describe('one service process per SQLite database', () => {
  let dataDir: string;
  let configPath: string;
  beforeAll(() => {
    ensureBuilt();
    dataDir = tempDir('switchyard-lock-');
    configPath = path.join(dataDir, 'config.json');
    fs.writeFileSync(configPath, JSON.stringify(billingConfig()));
  }, 180_000);
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it(
    'refuses a second process on the same file with a clear message, and a killed process leaves no lock',
    { timeout: 90_000 },
    async () => {
      const first = await startServiceProcess({ dataDir, configPath, name: 'first' });
      try {
        const second = startServiceProcess({ dataDir, configPath, name: 'second' });
        await expect(second).rejects.toThrow(/second exited during start/);
        await expect(second).rejects.toThrow(
          `The SQLite database ${path.join(dataDir, 'switchyard.sqlite')} is in use by another Switchyard process (it holds ${path.join(dataDir, 'switchyard.sqlite.lock')})`,
        );
        // The first process is untouched: it still answers.
        expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
      } finally {
        await first.kill();
      }
      // SIGKILL ran no shutdown hook; the kernel released the lock with the process.
      const after = await startServiceProcess({ dataDir, configPath, name: 'after a kill' });
      await after.stop();
    },
  );

  it('services of one process share its lock, which the process lets go when the last of them closes', async () => {
    const context = await billingContext({ storage: await openTestStorage('sqlite') });
    const file = context.storage.location.sqlitePath!;
    const successor = await createServices(context.config, { storage: context.storage, logger: pino({ level: 'silent' }) });
    try {
      expect(lockedElsewhere(file)).toBe('SQLITE_BUSY');
      await successor.close();
      expect(lockedElsewhere(file)).toBe('SQLITE_BUSY');
      await context.services.billing.close();
      expect(lockedElsewhere(file)).toBe('locked');
    } finally {
      await context.close();
    }
  });
});
