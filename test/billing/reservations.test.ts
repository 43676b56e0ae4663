/**
 * Credit reservations through the real gateway (SQLite ledger thread): once a wallet is busy, the service holds
 * credit on it once and its calls draw their holds from that in memory; each call's row is written with its
 * settlement. The customer sees only the holds of calls in flight, a call or a debit that needs the reserved credit
 * gets it back, and an idle reservation is released.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import type { TestContext } from '../helpers/context.js';
import { TEST_DATABASE_URL } from '../helpers/databases.js';
import { operatorHeaders } from '../helpers/context.js';
import { billingContext, chat, CHAT_BODY, expectLedgerConsistent, newCustomer, walletOf } from './helpers.js';

const FUNDING = 2_000_000;
const IDLE_RELEASE_MS = 400;

describe('credit reservations', () => {
  let upstream: ModelUpstream;
  let context: TestContext;
  let url: string;

  beforeEach(async () => {
    upstream = await startModelUpstream({
      defaultReply: { kind: 'text', text: 'one two three', usage: { inputTokens: 30, outputTokens: 20 } },
    });
    context = await billingContext({
      upstreamUrl: upstream.url,
      config: { billing: { reservations: { minCallsPerSecond: 5, idleReleaseMs: IDLE_RELEASE_MS } } },
    });
    url = await context.listen();
  });
  afterEach(async () => {
    await expectLedgerConsistent(context);
    await context.close();
    await upstream.close();
  });

  const reservations = (accountCustomer: number) =>
    context.storage.db
      .selectFrom('billing_reservations')
      .innerJoin('billing_accounts', 'billing_accounts.id', 'billing_reservations.account_id')
      .select(['billing_reservations.held_micros', 'billing_accounts.held_micros as account_held'])
      .where('billing_accounts.customer_id', '=', accountCustomer)
      .execute();
  const callRows = (customerId: number) =>
    context.storage.db.selectFrom('billing_calls').selectAll().where('customer_id', '=', customerId).orderBy('id').execute();

  /** Sequential calls until the wallet is busy enough to be reserved for. */
  async function busy(key: string, calls: number): Promise<string[]> {
    const requestIds: string[] = [];
    for (let index = 0; index < calls; index += 1) {
      const response = await chat(url, key);
      expect(response.status, await response.clone().text()).toBe(200);
      await response.text();
      requestIds.push(response.headers.get('x-request-id')!);
    }
    return requestIds;
  }

  // The suite's contexts run on PostgreSQL when TEST_DATABASE_URL is set: reservations are the SQLite ledger thread's.
  it.skipIf(TEST_DATABASE_URL)(
    'a busy wallet’s calls draw from one reservation: a call in flight has no row yet, its hold shows, each call is billed once',
    async () => {
      const buyer = await newCustomer(context, FUNDING);
      const requestIds = await busy(buyer.systemToken, 30);
      const [reservation] = await reservations(buyer.customerId);
      expect(reservation, 'a reservation for the busy wallet').toBeDefined();
      expect(Number(reservation!.held_micros)).toBeGreaterThan(0);
      // Reserved credit no call drew is not shown as held.
      expect(await walletOf(context, buyer.customerId)).toMatchObject({ holdsMicros: 0 });
      const metrics = (await context.app.inject({ method: 'GET', url: '/metrics', headers: operatorHeaders })).body;
      expect(metrics).toMatch(/^switchyard_credit_reservations 1$/m);
      expect(Number(/^switchyard_reserved_calls_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(15);

      // A slow call drawn from the reservation: its hold shows while it streams, yet it has no row before it settles.
      upstream.enqueue({
        kind: 'text',
        text: 'slow answer in five parts',
        chunks: 5,
        chunkDelayMs: 150,
        usage: { inputTokens: 30, outputTokens: 20 },
      });
      const rowsBefore = (await callRows(buyer.customerId)).length;
      const streaming = chat(url, buyer.systemToken, { ...CHAT_BODY, stream: true });
      await upstream.waitForRequests(requestIds.length + 1);
      const during = await walletOf(context, buyer.customerId);
      expect(during.holdsMicros).toBeGreaterThan(0);
      expect(await callRows(buyer.customerId)).toHaveLength(rowsBefore);
      const slow = await streaming;
      expect(slow.status).toBe(200);
      expect(await slow.text()).toContain('[DONE]');
      requestIds.push(slow.headers.get('x-request-id')!);

      const after = await walletOf(context, buyer.customerId);
      expect(after.holdsMicros).toBe(0);
      const rows = await callRows(buyer.customerId);
      expect(rows.map((row) => row.request_id).sort()).toEqual([...requestIds].sort());
      expect(rows.every((row) => row.status === 'settled' && row.cost_micros! > 0)).toBe(true);
      const costs = rows.reduce((sum, row) => sum + row.cost_micros!, 0);
      expect(after.balanceMicros).toBe(FUNDING - costs);
      const usage = await context.storage.db
        .selectFrom('ledger_entries')
        .select('reference')
        .where('kind', '=', 'usage')
        .where('amount_micros', '<', 0)
        .execute();
      expect(usage.map((entry) => entry.reference).sort()).toEqual(rows.map((row) => `call:${row.id}`).sort());

      // Idle: given back, nothing held on the wallet.
      for (const deadline = Date.now() + 10_000; (await reservations(buyer.customerId)).length > 0 && Date.now() < deadline;)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await reservations(buyer.customerId)).toEqual([]);
      const account = await context.storage.db
        .selectFrom('billing_accounts')
        .select('held_micros')
        .where('customer_id', '=', buyer.customerId)
        .where('kind', '=', 'token_wallet')
        .executeTakeFirstOrThrow();
      expect(Number(account.held_micros)).toBe(0);
    },
  );

  it.skipIf(TEST_DATABASE_URL)('a call or an operator debit that needs the reserved credit gets it back', async () => {
    // A smaller wallet: its largest call (the model's output cap) needs more than the reservation leaves outside it.
    const buyer = await newCustomer(context, 900_000);
    await busy(buyer.systemToken, 30);
    const [reservation] = await reservations(buyer.customerId);
    const reservedMicros = Number(reservation!.held_micros);
    expect(reservedMicros).toBeGreaterThan(0);
    const { availableMicros } = await walletOf(context, buyer.customerId);
    const big = await chat(url, buyer.systemToken, { ...CHAT_BODY, max_tokens: Math.floor((availableMicros - 5_000) / 24) });
    expect(big.status, await big.clone().text()).toBe(200);
    await big.text();
    const bigCall = await context.storage.db
      .selectFrom('billing_calls')
      .select('hold_micros')
      .where('request_id', '=', big.headers.get('x-request-id')!)
      .executeTakeFirstOrThrow();
    expect(Number(bigCall.hold_micros), 'the call needed credit the reservation held').toBeGreaterThan(availableMicros - reservedMicros);

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await busy(buyer.systemToken, 30);
    expect((await reservations(buyer.customerId)).length).toBe(1);
    const before = await walletOf(context, buyer.customerId);
    const debit = await context.app.inject({
      method: 'POST',
      url: `/api/admin/customers/${buyer.customerId}/wallet/adjust`,
      headers: { ...operatorHeaders, 'idempotency-key': 'take-nearly-all' },
      payload: { amount_micros: -(before.availableMicros - 1), reason: 'correction' },
    });
    expect(debit.statusCode, debit.body).toBe(200);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 1, holdsMicros: 0 });
  });

  it.skipIf(!TEST_DATABASE_URL)('on PostgreSQL a busy wallet’s calls each commit a hold of their own: no reservation', async () => {
    const buyer = await newCustomer(context, FUNDING);
    const requestIds = await busy(buyer.systemToken, 30);
    expect(await reservations(buyer.customerId)).toEqual([]);
    const metrics = (await context.app.inject({ method: 'GET', url: '/metrics', headers: operatorHeaders })).body;
    expect(metrics).toMatch(/^switchyard_reserved_calls_total 0$/m);
    const after = await walletOf(context, buyer.customerId);
    const rows = await callRows(buyer.customerId);
    expect(rows.map((row) => row.request_id).sort()).toEqual([...requestIds].sort());
    expect(after.balanceMicros).toBe(FUNDING - rows.reduce((sum, row) => sum + (row.cost_micros ?? 0), 0));
  });
});
