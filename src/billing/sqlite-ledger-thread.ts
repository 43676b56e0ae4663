/**
 * The SQLite ledger worker thread (started by sqlite-ledger-worker.ts): batching, the durability order and the
 * settlement rule. Its SQL and connection settings are storage's (storage/sqlite-ledger-statements.ts).
 *
 * A drain commits what queued up: each batch's holds first (they answer at once; holds going first can only see
 * less spare credit than in arrival order), then its settlements, which answer after the next fsync of the WAL.
 * Holds commit with synchronous=NORMAL (durable against a crash of the process); a settlement answers only once the
 * WAL holding its commit is on disk, and that fsync runs on the thread pool after the write lock is released, so
 * holds and the next batches keep committing while the disk syncs. One fsync covers every commit before it, so a
 * durable settlement never lacks its hold.
 */
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { assert } from '../kernel/assert.js';
import { openLedgerStatements } from '../storage/sqlite-ledger-statements.js';
import { commitAll, messageOf, type QueuedOperation } from './sqlite-ledger-batches.js';
import type { LedgerAnswer, LedgerThreadData } from './sqlite-ledger-worker.js';

function startLedgerThread(port: NonNullable<typeof parentPort>, data: LedgerThreadData): void {
  const ledger = openLedgerStatements(data.file);
  const post = (answers: LedgerAnswer[]) => port.postMessage({ answers });

  // Settlements committed and waiting for the WAL to reach the disk. An fsync answers only the commits made before
  // it started; what commits meanwhile waits for the next one.
  let walFd: number | null = null;
  let syncing = false;
  let unsynced: LedgerAnswer[] = [];
  const syncWal = (): void => {
    if (syncing || unsynced.length === 0) return;
    const answers = unsynced;
    unsynced = [];
    syncing = true;
    try {
      walFd ??= fs.openSync(ledger.walFile, 'r');
    } catch (error) {
      syncing = false;
      post(answers.map((answer) => ({ id: answer.id, ok: false, error: `opening the WAL to sync it failed: ${messageOf(error)}` })));
      return;
    }
    fs.fsync(walFd, (error) => {
      syncing = false;
      post(error ? answers.map((answer) => ({ id: answer.id, ok: false, error: `syncing the WAL failed: ${error.message}` })) : answers);
      syncWal();
    });
  };

  let queue: QueuedOperation[] = [];
  let scheduled = false;
  const drain = (): void => {
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.splice(0, data.maxBatch);
      const holds = batch.filter((item) => item.op.kind === 'hold');
      const settlements = batch.filter((item) => item.op.kind !== 'hold');
      if (holds.length > 0) post(commitAll(ledger, holds));
      if (settlements.length > 0) {
        for (const answer of commitAll(ledger, settlements)) {
          if (answer.ok) unsynced.push(answer);
          else post([answer]);
        }
      }
    }
    // Free for the next batch, while the fsync (if any) runs on the thread pool.
    port.postMessage({ idle: true });
    syncWal();
  };
  port.on('message', (items: QueuedOperation[]) => {
    queue.push(...items);
    // Let every message already queued on the port join this batch before committing.
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  });
}

assert(parentPort !== null, 'sqlite-ledger-thread.ts runs as a worker thread (started by sqlite-ledger-worker.ts)');
startLedgerThread(parentPort, workerData as LedgerThreadData);
