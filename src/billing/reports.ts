/** Read models of the wallet: payments (credits), token transactions, daily spend and per-key usage. */
import { sql, type Kysely } from 'kysely';
import { moneyJson } from '../kernel/money.js';
import type { Database } from '../storage/schema.js';
import { droppedByRequest, type DroppedNames } from './call-notes.js';
import { walletCode } from './ledger.js';

const DAY_MS = 24 * 3600_000;

export const utcDay = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

export async function payments(db: Kysely<Database>, customerId: number, limit: number) {
  const rows = await db
    .selectFrom('ledger_entries as e')
    .innerJoin('billing_accounts as a', 'a.id', 'e.account_id')
    .select(['e.id', 'e.transfer_id', 'e.kind', 'e.amount_micros', 'e.memo', 'e.created_at', 'a.kind as wallet'])
    .where('a.code', 'in', [walletCode(customerId, 'token'), walletCode(customerId, 'cash')])
    .where('e.kind', '!=', 'usage')
    .orderBy('e.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    transfer_id: row.transfer_id,
    kind: row.kind,
    wallet: row.wallet === 'cash_wallet' ? 'cash' : 'token',
    amount: moneyJson(row.amount_micros),
    memo: row.memo,
    created_at: new Date(row.created_at).toISOString(),
  }));
}

function callJson(
  row: {
    id: number;
    request_id: string;
    client_request_id: string | null;
    thread_id: string | null;
    turn_id: string | null;
    key_id: number | null;
    model: string;
    requested_model: string;
    operation: string;
    rate_card: string;
    status: string;
    outcome: string | null;
    input_tokens: number | null;
    output_tokens: number | null;
    cached_input_tokens: number | null;
    cache_write_tokens: number | null;
    cache_write_1h_tokens: number | null;
    usage_source: string | null;
    cost_micros: number | null;
    hold_micros: number;
    covered_plan: string | null;
    created_at: number;
  },
  dropped: DroppedNames | undefined,
) {
  return {
    id: row.id,
    request_id: row.request_id,
    client_request_id: row.client_request_id,
    agent_turn: row.thread_id === null ? null : { thread_id: row.thread_id, turn_id: row.turn_id },
    key_id: row.key_id,
    model: row.model,
    requested_model: row.requested_model,
    operation: row.operation,
    rate_card: row.rate_card,
    status: row.status,
    outcome: row.outcome,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    cached_input_tokens: row.cached_input_tokens,
    cache_write_tokens: row.cache_write_tokens,
    cache_write_1h_tokens: row.cache_write_1h_tokens,
    usage_source: row.usage_source,
    cost: moneyJson(row.cost_micros ?? 0),
    hold: moneyJson(row.status === 'open' ? row.hold_micros : 0),
    covered_by_plan: row.covered_plan,
    /** What the call went on without (hosted tools and request fields its destination does not take). */
    dropped_tools: dropped?.tools ?? [],
    dropped_fields: dropped?.fields ?? [],
    created_at: new Date(row.created_at).toISOString(),
  };
}

async function dailyTotals(db: Kysely<Database>, filter: { customerId: number; keyId?: number }, sinceMs: number) {
  let query = db
    .selectFrom('billing_calls')
    .select([
      sql<number>`(created_at / ${sql.lit(DAY_MS)})`.as('day_index'),
      (eb) => eb.fn.countAll<number>().as('requests'),
      (eb) => eb.fn.sum<number>(eb.fn.coalesce('input_tokens', eb.lit(0))).as('input_tokens'),
      (eb) => eb.fn.sum<number>(eb.fn.coalesce('output_tokens', eb.lit(0))).as('output_tokens'),
      (eb) => eb.fn.sum<number>(eb.fn.coalesce('cost_micros', eb.lit(0))).as('cost_micros'),
    ])
    .where('customer_id', '=', filter.customerId)
    .where('created_at', '>=', sinceMs);
  if (filter.keyId !== undefined) query = query.where('key_id', '=', filter.keyId);
  const rows = await query
    .groupBy(sql`(created_at / ${sql.lit(DAY_MS)})`)
    .orderBy(sql`(created_at / ${sql.lit(DAY_MS)})`)
    .execute();
  return rows.map((row) => ({
    date: utcDay(Math.floor(Number(row.day_index)) * DAY_MS),
    requests: Number(row.requests),
    input_tokens: Number(row.input_tokens ?? 0),
    output_tokens: Number(row.output_tokens ?? 0),
    spend: moneyJson(Number(row.cost_micros ?? 0)),
  }));
}

/** Daily totals per billed model (the dashboard's usage chart), oldest day first. */
async function dailyTotalsByModel(db: Kysely<Database>, customerId: number, sinceMs: number) {
  const day = sql<number>`(created_at / ${sql.lit(DAY_MS)})`;
  const rows = await db
    .selectFrom('billing_calls')
    .select([
      day.as('day_index'),
      'model',
      (eb) => eb.fn.countAll<number>().as('requests'),
      (eb) => eb.fn.sum<number>(eb.fn.coalesce('input_tokens', eb.lit(0))).as('input_tokens'),
      (eb) => eb.fn.sum<number>(eb.fn.coalesce('output_tokens', eb.lit(0))).as('output_tokens'),
      (eb) => eb.fn.sum<number>(eb.fn.coalesce('cost_micros', eb.lit(0))).as('cost_micros'),
    ])
    .where('customer_id', '=', customerId)
    .where('created_at', '>=', sinceMs)
    .groupBy([day, 'model'])
    .orderBy(day)
    .orderBy('model')
    .execute();
  return rows.map((row) => ({
    date: utcDay(Math.floor(Number(row.day_index)) * DAY_MS),
    model: row.model,
    requests: Number(row.requests),
    input_tokens: Number(row.input_tokens ?? 0),
    output_tokens: Number(row.output_tokens ?? 0),
    spend: moneyJson(Number(row.cost_micros ?? 0)),
  }));
}

export async function tokenUsage(db: Kysely<Database>, customerId: number, nowMs: number, options: { limit: number; days: number }) {
  const calls = await db
    .selectFrom('billing_calls')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy('id', 'desc')
    .limit(options.limit)
    .execute();
  const sinceMs = Math.floor(nowMs / DAY_MS) * DAY_MS - (options.days - 1) * DAY_MS;
  const [dailySpend, dailyByModel, dropped] = await Promise.all([
    dailyTotals(db, { customerId }, sinceMs),
    dailyTotalsByModel(db, customerId, sinceMs),
    droppedByRequest(
      db,
      customerId,
      calls.map((call) => call.request_id),
    ),
  ]);
  return {
    transactions: calls.map((call) => callJson(call, dropped.get(call.request_id))),
    daily_spend: dailySpend,
    daily_by_model: dailyByModel,
  };
}

export async function keyUsage(db: Kysely<Database>, customerId: number, keyId: number, nowMs: number, days: number) {
  const sinceMs = Math.floor(nowMs / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  const daily = await dailyTotals(db, { customerId, keyId }, sinceMs);
  const totals = daily.reduce(
    (sum, day) => ({
      requests: sum.requests + day.requests,
      input_tokens: sum.input_tokens + day.input_tokens,
      output_tokens: sum.output_tokens + day.output_tokens,
      spend_micros: sum.spend_micros + day.spend.micros,
    }),
    { requests: 0, input_tokens: 0, output_tokens: 0, spend_micros: 0 },
  );
  return {
    key_id: keyId,
    days,
    since: new Date(sinceMs).toISOString(),
    totals: {
      requests: totals.requests,
      input_tokens: totals.input_tokens,
      output_tokens: totals.output_tokens,
      spend: moneyJson(totals.spend_micros),
    },
    daily,
  };
}
