/**
 * Usage an operator ships to their own billing or analytics: settled calls and agent turns, per period and
 * customer, one JSON object per record, in pages. A page ends with an opaque cursor (the position after its last
 * record), so a long export is read page by page with stable results while calls keep settling.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { BillingCallsTable } from '../storage/tables/billing.js';
import { AppError } from '../kernel/errors.js';
import { formatUsd } from '../kernel/money.js';

export interface ExportQuery {
  /** Settled at or after (ms since the epoch). */
  fromMs: number;
  /** Settled before. */
  toMs: number;
  customerId?: number;
  /** From a previous page's `next_cursor`. */
  cursor?: string;
  limit: number;
}

export interface ExportPage<T> {
  records: T[];
  /** Null on the last page. */
  nextCursor: string | null;
}

/** One settled call as exported and as sent to the usage webhook. */
export function usageRecord(row: Selectable<BillingCallsTable>) {
  const cost = Number(row.cost_micros ?? 0);
  return {
    call_id: Number(row.id),
    request_id: row.request_id,
    client_request_id: row.client_request_id,
    customer_id: Number(row.customer_id),
    key_id: row.key_id === null ? null : Number(row.key_id),
    surface: row.surface,
    operation: row.operation,
    model: row.model,
    requested_model: row.requested_model,
    thread_id: row.thread_id,
    turn_id: row.turn_id,
    outcome: row.outcome,
    input_tokens: Number(row.input_tokens ?? 0),
    output_tokens: Number(row.output_tokens ?? 0),
    cached_input_tokens: Number(row.cached_input_tokens ?? 0),
    usage_source: row.usage_source,
    cost_micros: cost,
    cost_usd: formatUsd(cost),
    covered_plan: row.covered_plan,
    created_at: new Date(Number(row.created_at)).toISOString(),
    settled_at: new Date(Number(row.settled_at)).toISOString(),
  };
}

export type UsageRecord = ReturnType<typeof usageRecord>;

export interface TurnRecord {
  customer_id: number;
  thread_id: string;
  turn_id: string | null;
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_micros: number;
  cost_usd: string;
  first_call_at: string;
  last_settled_at: string;
}

function encodeCursor(parts: unknown[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

function decodeCursor<T extends unknown[]>(cursor: string, check: (parts: unknown[]) => boolean): T {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parts = undefined;
  }
  if (!Array.isArray(parts) || !check(parts)) {
    throw new AppError('VALIDATION_FAILED', 'cursor is not one this export handed out', {
      issues: [{ loc: ['query', 'cursor'], msg: 'not a cursor of this export', type: 'value_error' }],
    });
  }
  return parts as T;
}

/** Settled calls in settlement order (then id), a page at a time. */
export async function exportCalls(db: Kysely<Database>, query: ExportQuery): Promise<ExportPage<UsageRecord>> {
  let select = db
    .selectFrom('billing_calls')
    .selectAll()
    .where('status', '=', 'settled')
    .where('settled_at', '>=', query.fromMs)
    .where('settled_at', '<', query.toMs);
  if (query.customerId !== undefined) select = select.where('customer_id', '=', query.customerId);
  if (query.cursor !== undefined) {
    const [settledAt, id] = decodeCursor<[number, number]>(
      query.cursor,
      (parts) => parts.length === 2 && parts.every(Number.isSafeInteger),
    );
    select = select.where((eb) => eb.or([eb('settled_at', '>', settledAt), eb.and([eb('settled_at', '=', settledAt), eb('id', '>', id)])]));
  }
  const rows = await select
    .orderBy('settled_at')
    .orderBy('id')
    .limit(query.limit + 1)
    .execute();
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    records: page.map(usageRecord),
    nextCursor: rows.length > query.limit && last ? encodeCursor([Number(last.settled_at), Number(last.id)]) : null,
  };
}

/** Agent turns (the model calls an app-server made for one turn), by customer, thread and turn. */
export async function exportTurns(db: Kysely<Database>, query: ExportQuery): Promise<ExportPage<TurnRecord>> {
  const turn = sql<string>`coalesce(turn_id, '')`;
  let select = db
    .selectFrom('billing_calls')
    .select([
      'customer_id',
      'thread_id',
      turn.as('turn'),
      (eb) => eb.fn.countAll<number>().as('model_calls'),
      (eb) => eb.fn.sum<number>(eb.fn.coalesce('input_tokens', eb.lit(0))).as('input_tokens'),
      (eb) => eb.fn.sum<number>(eb.fn.coalesce('output_tokens', eb.lit(0))).as('output_tokens'),
      (eb) => eb.fn.sum<number>(eb.fn.coalesce('cost_micros', eb.lit(0))).as('cost_micros'),
      (eb) => eb.fn.min<number>('created_at').as('first_call_at'),
      (eb) => eb.fn.max<number>('settled_at').as('last_settled_at'),
    ])
    .where('status', '=', 'settled')
    .where('thread_id', 'is not', null)
    .where('settled_at', '>=', query.fromMs)
    .where('settled_at', '<', query.toMs);
  if (query.customerId !== undefined) select = select.where('customer_id', '=', query.customerId);
  if (query.cursor !== undefined) {
    const [customerId, threadId, turnId] = decodeCursor<[number, string, string]>(
      query.cursor,
      (parts) => parts.length === 3 && Number.isSafeInteger(parts[0]) && typeof parts[1] === 'string' && typeof parts[2] === 'string',
    );
    select = select.where((eb) =>
      eb.or([
        eb('customer_id', '>', customerId),
        eb.and([eb('customer_id', '=', customerId), eb('thread_id', '>', threadId)]),
        eb.and([eb('customer_id', '=', customerId), eb('thread_id', '=', threadId), eb(turn, '>', turnId)]),
      ]),
    );
  }
  const rows = await select
    .groupBy(['customer_id', 'thread_id', turn])
    .orderBy('customer_id')
    .orderBy('thread_id')
    .orderBy(turn)
    .limit(query.limit + 1)
    .execute();
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    records: page.map((row) => {
      const cost = Number(row.cost_micros ?? 0);
      return {
        customer_id: Number(row.customer_id),
        thread_id: row.thread_id!,
        turn_id: row.turn === '' ? null : row.turn,
        model_calls: Number(row.model_calls),
        input_tokens: Number(row.input_tokens ?? 0),
        output_tokens: Number(row.output_tokens ?? 0),
        cost_micros: cost,
        cost_usd: formatUsd(cost),
        first_call_at: new Date(Number(row.first_call_at)).toISOString(),
        last_settled_at: new Date(Number(row.last_settled_at)).toISOString(),
      };
    }),
    nextCursor: rows.length > query.limit && last ? encodeCursor([Number(last.customer_id), last.thread_id, last.turn]) : null,
  };
}

/** RFC 4180 CSV: a header line, then one line per record; fields with a comma, quote or line break are quoted. */
export function toCsv(records: readonly Record<string, unknown>[], columns: readonly string[], header: boolean): string {
  const cell = (value: unknown): string => {
    const text = value === null || value === undefined ? '' : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const lines = records.map((record) => columns.map((column) => cell(record[column])).join(','));
  return (header ? [columns.join(','), ...lines] : lines).map((line) => `${line}\r\n`).join('');
}
