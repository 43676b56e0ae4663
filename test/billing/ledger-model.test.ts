/**
 * A model test of the money path: one random sequence of holds, settlements (usage within, at and above the hold),
 * releases, idempotent adjustments (credits and debits, keys replayed and reused with another amount) and crashes
 * (the store is dropped without settling, sometimes with a settlement journaled and not committed, and a new
 * store recovers as the sweep does: journal first, then the gone process's holds) runs against every store of the
 * test run (SQLite with its ledger thread; PostgreSQL when TEST_DATABASE_URL is set) and a small in-memory
 * reference model. After every step each store's balance and held amount equal the model's; after each sequence
 * `checkLedger()` is clean.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyStore, requestHash } from '../../src/billing/idempotency.js';
import { checkLedger, createWallets, ensureSystemAccounts } from '../../src/billing/ledger.js';
import type { ResolvedCard } from '../../src/billing/rate-cards.js';
import { SettlementJournal } from '../../src/billing/settlement-journal.js';
import { SqliteLedgerWorker } from '../../src/billing/sqlite-ledger-worker.js';
import { Wallet, type HeldCall } from '../../src/billing/wallet.js';
import { directWriter, groupCommitWriter } from '../../src/billing/writer-queue.js';
import { AppError } from '../../src/kernel/errors.js';
import { systemClock } from '../../src/kernel/clock.js';
import { dialects, openTestStorage, tempDir, type TestStorage } from '../helpers/databases.js';

/** One micro-USD per input token and two per output token: costs are easy to follow. */
const CARD: ResolvedCard = {
  name: 'model-test',
  label: 'model test',
  note: null,
  inputMicrosPerMillion: 1_000_000,
  outputMicrosPerMillion: 2_000_000,
  cachedInputMicrosPerMillion: 1_000_000,
  cacheWriteMicrosPerMillion: 1_000_000,
  cacheWrite1hMicrosPerMillion: 1_000_000,
};
const logger = pino({ level: 'silent' });

type Command =
  | { kind: 'hold'; inputTokens: number; maxOutputTokens: number }
  | { kind: 'settle'; pick: number; inputTokens: number; outputTokens: number; outcome: 'completed' | 'aborted' | 'failed' }
  | { kind: 'release' }
  | { kind: 'adjust'; key: number; amountMicros: number }
  | { kind: 'crash'; journaled: boolean; pick: number; inputTokens: number; outputTokens: number };

const tokens = fc.integer({ min: 0, max: 300 });
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('hold' as const), inputTokens: tokens, maxOutputTokens: tokens }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('settle' as const),
      pick: fc.nat(),
      inputTokens: tokens,
      outputTokens: tokens,
      outcome: fc.constantFrom('completed' as const, 'aborted' as const, 'failed' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'release' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('adjust' as const),
      key: fc.integer({ min: 0, max: 5 }),
      amountMicros: fc.integer({ min: -400, max: 1_000 }).filter((amount) => amount !== 0),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('crash' as const),
      journaled: fc.boolean(),
      pick: fc.nat(),
      inputTokens: tokens,
      outputTokens: tokens,
    }),
  },
);

/** The reference: one wallet, its calls, its idempotency keys. */
interface ModelCall {
  holdMicros: number;
  status: 'open' | 'released' | 'settled';
}
class Model {
  balance = 0;
  held = 0;
  calls: ModelCall[] = [];
  keys = new Map<number, number>();

  hold(holdMicros: number): boolean {
    if (holdMicros > 0 && this.balance - this.held < holdMicros) return false;
    this.held += holdMicros;
    this.calls.push({ holdMicros, status: 'open' });
    return true;
  }

  /** Returns what was collected, or null when the call was already settled. */
  settle(index: number, costMicros: number): number | null {
    const call = this.calls[index]!;
    if (call.status === 'settled') return null;
    const held = call.status === 'open' ? call.holdMicros : 0;
    const spare = this.balance - this.held;
    const collected = costMicros <= held ? costMicros : held + Math.min(Math.max(0, spare), costMicros - held);
    this.held -= held;
    this.balance -= collected;
    call.status = 'settled';
    return collected;
  }

  releaseOpen(): void {
    for (const call of this.calls) {
      if (call.status !== 'open') continue;
      this.held -= call.holdMicros;
      call.status = 'released';
    }
  }

  /** 'applied', 'replayed', 'mismatch' (key used with another amount) or 'short' (a debit above what is available). */
  adjust(key: number, amountMicros: number): 'applied' | 'replayed' | 'mismatch' | 'short' {
    const known = this.keys.get(key);
    if (known !== undefined) return known === amountMicros ? 'replayed' : 'mismatch';
    if (amountMicros < 0 && this.balance - this.held < -amountMicros) return 'short';
    this.keys.set(key, amountMicros);
    this.balance += amountMicros;
    return 'applied';
  }
}

/** One process's billing parts on a database: its wallet (ledger thread on SQLite), journal and idempotency store. */
interface Store {
  storage: TestStorage;
  journalDir: string;
  nodeId: string;
  wallet: Wallet;
  worker?: SqliteLedgerWorker;
  idempotency: IdempotencyStore;
  /** Per model call index: what the hold returned. */
  held: Map<number, HeldCall>;
}

function openStore(storage: TestStorage, journalDir: string, held: Map<number, HeldCall>): Store {
  const nodeId = randomUUID();
  const worker = storage.location.sqlitePath ? new SqliteLedgerWorker(storage.location.sqlitePath, 64) : undefined;
  const writer = storage.dialect === 'sqlite' ? groupCommitWriter(storage.db, 64) : directWriter(storage.db);
  const journal = new SettlementJournal(journalDir, nodeId, logger);
  const wallet = new Wallet(storage, writer, systemClock, nodeId, worker, journal);
  return { storage, journalDir, nodeId, wallet, worker, idempotency: new IdempotencyStore(storage, systemClock, 86_400_000), held };
}

/** The process is gone: nothing of it settles or drains; a new one recovers as the sweep does. */
async function crashAndRecover(store: Store): Promise<Store> {
  await (store.worker as unknown as { worker: { terminate(): Promise<number> } } | undefined)?.worker.terminate();
  const next = openStore(store.storage, store.journalDir, store.held);
  await next.wallet.settleFromJournal([store.nodeId]);
  await next.wallet.releaseOpen({ nodeIds: [store.nodeId] });
  return next;
}

const usageOf = (inputTokens: number, outputTokens: number) => ({
  inputTokens,
  outputTokens,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  source: 'upstream',
});

async function adjust(
  store: Store,
  customerId: number,
  key: number,
  amountMicros: number,
): Promise<'applied' | 'replayed' | 'mismatch' | 'short'> {
  try {
    const result = await store.idempotency.run(
      `customer:${customerId}`,
      `key-${key}`,
      requestHash('wallet.adjust', { amount_micros: amountMicros }),
      async (trx) => {
        await store.wallet.creditIn(trx, {
          customerId,
          amountMicros,
          system: 'adjustments',
          kind: 'adjustment',
          memo: 'model test',
          reference: `idempotency:key-${key}`,
        });
        return { status: 200, body: { amount_micros: amountMicros } };
      },
    );
    return result.replayed ? 'replayed' : 'applied';
  } catch (error) {
    if (error instanceof AppError && error.code === 'VALIDATION_FAILED') return 'mismatch';
    if (error instanceof AppError && error.code === 'INSUFFICIENT_CREDIT') return 'short';
    throw error;
  }
}

async function newCustomer(storage: TestStorage): Promise<number> {
  const email = `model-${randomUUID()}@example.com`;
  return storage.db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('customers')
      .values({ email, username: email, created_at: systemClock.nowMs() } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    await createWallets(trx, row.id, systemClock.nowMs());
    return row.id;
  });
}

describe('the money path against a reference model', () => {
  const storages: TestStorage[] = [];
  beforeAll(async () => {
    for (const dialect of dialects) {
      const storage = await openTestStorage(dialect);
      await ensureSystemAccounts(storage.db, systemClock.nowMs());
      storages.push(storage);
    }
  });
  afterAll(async () => {
    for (const storage of storages) await storage.destroy();
  });

  it(`random sequences end with ${dialects.join(' and ')} equal to the model and a clean ledger`, { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 25 }), async (commands) => {
        const model = new Model();
        let stores: { store: Store; customerId: number }[] = [];
        for (const storage of storages)
          stores.push({ store: openStore(storage, tempDir('switchyard-journal-'), new Map()), customerId: await newCustomer(storage) });
        try {
          for (const step of commands) {
            if (step.kind === 'hold') {
              const holdMicros = step.inputTokens + 2 * step.maxOutputTokens;
              const index = model.calls.length;
              const accepted = model.hold(holdMicros);
              for (const { store, customerId } of stores) {
                const held = store.wallet.hold({
                  customerId,
                  keyId: null,
                  requestId: `req-${index}`,
                  model: 'm',
                  requestedModel: 'm',
                  operation: 'chat',
                  surface: 'gateway',
                  card: CARD,
                  estimatedInputTokens: step.inputTokens,
                  maxOutputTokens: step.maxOutputTokens,
                  coveredPlan: null,
                });
                if (accepted) store.held.set(index, await held);
                else await expect(held).rejects.toMatchObject({ code: 'INSUFFICIENT_CREDIT' });
              }
            } else if (step.kind === 'settle') {
              if (model.calls.length === 0) continue;
              const index = step.pick % model.calls.length;
              const collected = model.settle(index, step.inputTokens + 2 * step.outputTokens);
              for (const { store } of stores) {
                const settled = await store.wallet.settle(
                  store.held.get(index)!,
                  usageOf(step.inputTokens, step.outputTokens),
                  step.outcome,
                );
                expect(settled.alreadySettled).toBe(collected === null);
                if (collected !== null) expect(settled.costMicros).toBe(collected);
              }
            } else if (step.kind === 'release') {
              model.releaseOpen();
              for (const { store } of stores) await store.wallet.releaseOpen({ nodeIds: [store.nodeId] });
            } else if (step.kind === 'adjust') {
              const expected = model.adjust(step.key, step.amountMicros);
              for (const { store, customerId } of stores)
                expect(await adjust(store, customerId, step.key, step.amountMicros)).toBe(expected);
            } else {
              // A settlement journaled and not committed when the process dies is charged from the journal.
              const open = model.calls.flatMap((call, index) => (call.status === 'open' ? [index] : []));
              const journaled = step.journaled && open.length > 0 ? open[step.pick % open.length]! : null;
              if (journaled !== null) model.settle(journaled, step.inputTokens + 2 * step.outputTokens);
              model.releaseOpen();
              const next: typeof stores = [];
              for (const { store, customerId } of stores) {
                if (journaled !== null) {
                  store.wallet.settlementGate = () => new Promise<void>(() => undefined);
                  void store.wallet.settle(store.held.get(journaled)!, usageOf(step.inputTokens, step.outputTokens), 'completed');
                }
                next.push({ store: await crashAndRecover(store), customerId });
              }
              stores = next;
            }
            for (const { store, customerId } of stores) {
              const { token } = await store.wallet.balances(customerId);
              expect(token, `${store.storage.dialect} after ${JSON.stringify(step)}`).toEqual({ balance: model.balance, held: model.held });
            }
          }
        } finally {
          for (const { store } of stores) await store.worker?.close();
        }
        for (const { store } of stores)
          expect(await checkLedger(store.storage.db)).toEqual({ mismatchedAccounts: [], unbalancedTransfers: [], badHolds: [] });
      }),
      { numRuns: 25 },
    );
  });
});
