/**
 * A customer's activity: every billed gateway call, and every agent turn (the billed model calls one turn made,
 * read back as one entry), newest first, with the key, requested and resolved model, tokens, cost, latency,
 * outcome and request id. Filters by period, key, model, outcome and kind; paged with a cursor (the newest call id
 * of the last entry shown); the CSV export is the same entries as text.
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { kindLabel } from '../accounts/key-policy.js';
import { formatUsd, moneyJson } from '../kernel/money.js';
import type { Database } from '../storage/schema.js';

const DAY_MS = 24 * 3600_000;

export const ACTIVITY_OUTCOMES = ['completed', 'failed', 'aborted', 'expired', 'open'] as const;
export type ActivityOutcome = (typeof ACTIVITY_OUTCOMES)[number];

export interface ActivityFilter {
  /** Entries of the last `days` UTC days, today included. */
  days: number;
  keyId?: number;
  /** Matches the requested or the resolved model. */
  model?: string;
  outcome?: ActivityOutcome;
  kind?: 'call' | 'agent_turn';
}

export interface ActivityPage {
  filter: ActivityFilter;
  limit: number;
  /** Entries whose newest call id is below this (the `next_before` of the previous page). */
  before?: number;
}

/** One entry as the routes answer it (money as `{micros, usd}`, times as ISO strings). */
export interface ActivityEntry {
  id: string;
  kind: 'call' | 'agent_turn';
  started_at: string;
  key: { id: number; name: string; last_four: string } | null;
  requested_model: string;
  model: string;
  operation: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cost: { micros: number; usd: string };
  latency_ms: number | null;
  outcome: ActivityOutcome;
  request_id: string;
  project: { id: string; name: string | null } | null;
  turn_id: string | null;
}

interface GroupRow {
  last_id: number | string;
  started_at: number | string;
  ended_at: number | string | null;
  calls: number | string;
  open_calls: number | string;
  done_calls: number | string;
  worst_outcome: string | null;
  key_id: number | string | null;
  requested_model: string;
  model: string;
  operation: string;
  request_id: string;
  thread_id: string | null;
  turn_id: string | null;
  input_tokens: number | string | null;
  output_tokens: number | string | null;
  cached_input_tokens: number | string | null;
  cost_micros: number | string | null;
}

/** The calls of one agent turn share their turn id; any other call is an entry of its own. */
const ENTRY = sql<string>`coalesce(turn_id, cast(id as text))`;

function sinceMs(nowMs: number, days: number): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
}

function filtered(db: Kysely<Database>, customerId: number, filter: ActivityFilter, nowMs: number) {
  let query = db.selectFrom('billing_calls').where('customer_id', '=', customerId).where('created_at', '>=', sinceMs(nowMs, filter.days));
  if (filter.keyId !== undefined) query = query.where('key_id', '=', filter.keyId);
  if (filter.model !== undefined) {
    const model = filter.model;
    query = query.where((eb) => eb.or([eb('model', '=', model), eb('requested_model', '=', model)]));
  }
  if (filter.outcome === 'open') query = query.where('status', '=', 'open');
  else if (filter.outcome !== undefined) query = query.where('outcome', '=', filter.outcome);
  if (filter.kind === 'call') query = query.where('thread_id', 'is', null);
  if (filter.kind === 'agent_turn') query = query.where('thread_id', 'is not', null);
  return query;
}

async function groups(db: Kysely<Database>, customerId: number, page: ActivityPage, nowMs: number): Promise<GroupRow[]> {
  let query = filtered(db, customerId, page.filter, nowMs)
    .select([
      sql<number>`max(id)`.as('last_id'),
      sql<number>`min(created_at)`.as('started_at'),
      sql<number | null>`max(settled_at)`.as('ended_at'),
      sql<number>`count(*)`.as('calls'),
      sql<number>`sum(case when status = 'open' then 1 else 0 end)`.as('open_calls'),
      sql<number>`sum(case when outcome = 'completed' then 1 else 0 end)`.as('done_calls'),
      sql<string | null>`max(case when outcome <> 'completed' then outcome end)`.as('worst_outcome'),
      sql<number | null>`max(key_id)`.as('key_id'),
      sql<string>`max(requested_model)`.as('requested_model'),
      sql<string>`max(model)`.as('model'),
      sql<string>`max(operation)`.as('operation'),
      sql<string>`max(request_id)`.as('request_id'),
      sql<string | null>`max(thread_id)`.as('thread_id'),
      sql<string | null>`max(turn_id)`.as('turn_id'),
      sql<number>`sum(coalesce(input_tokens, 0))`.as('input_tokens'),
      sql<number>`sum(coalesce(output_tokens, 0))`.as('output_tokens'),
      sql<number>`sum(coalesce(cached_input_tokens, 0))`.as('cached_input_tokens'),
      sql<number>`sum(coalesce(cost_micros, 0))`.as('cost_micros'),
    ])
    .groupBy(ENTRY);
  if (page.before !== undefined) query = query.having(sql<SqlBool>`max(id)` as Expression<SqlBool>, '<', page.before as never);
  return (await query
    .orderBy(sql`max(id)`, 'desc')
    .limit(page.limit + 1)
    .execute()) as GroupRow[];
}

function outcomeOf(row: GroupRow): ActivityOutcome {
  if (Number(row.open_calls) > 0) return 'open';
  if (Number(row.done_calls) === Number(row.calls)) return 'completed';
  const worst = row.worst_outcome;
  return (ACTIVITY_OUTCOMES as readonly string[]).includes(worst ?? '') ? (worst as ActivityOutcome) : 'failed';
}

async function keyNames(db: Kysely<Database>, customerId: number, ids: number[]) {
  if (ids.length === 0) return new Map<number, { id: number; name: string; last_four: string }>();
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'name', 'kind', 'last_four'])
    .where('customer_id', '=', customerId)
    .where('id', 'in', ids)
    .execute();
  return new Map(
    rows.map((row) => [Number(row.id), { id: Number(row.id), name: row.name ?? kindLabel(row.kind), last_four: row.last_four }]),
  );
}

async function projectsOf(db: Kysely<Database>, customerId: number, threadIds: string[]) {
  if (threadIds.length === 0) return new Map<string, { id: string; name: string | null }>();
  const rows = await db
    .selectFrom('agent_project_threads as t')
    .leftJoin('projects as p', 'p.id', 't.project_id')
    .select(['t.thread_id', 't.project_id', 'p.name'])
    .where('t.customer_id', '=', customerId)
    .where('t.thread_id', 'in', threadIds)
    .execute();
  return new Map(rows.map((row) => [row.thread_id, { id: row.project_id, name: row.name ?? null }]));
}

const orNull = (value: number | string | null) => (value === null ? null : Number(value));

export async function activityPage(db: Kysely<Database>, customerId: number, page: ActivityPage, nowMs: number) {
  const rows = await groups(db, customerId, page, nowMs);
  const shown = rows.slice(0, page.limit);
  const keyIds = [...new Set(shown.map((row) => orNull(row.key_id)).filter((id): id is number => id !== null))];
  const threadIds = [...new Set(shown.map((row) => row.thread_id).filter((id): id is string => id !== null))];
  const [keys, projects] = await Promise.all([keyNames(db, customerId, keyIds), projectsOf(db, customerId, threadIds)]);
  const entries: ActivityEntry[] = shown.map((row) => {
    const keyId = orNull(row.key_id);
    const started = Number(row.started_at);
    const outcome = outcomeOf(row);
    const ended = orNull(row.ended_at);
    return {
      id: row.turn_id ?? `call_${Number(row.last_id)}`,
      kind: row.thread_id === null ? 'call' : 'agent_turn',
      started_at: new Date(started).toISOString(),
      key: keyId === null ? null : (keys.get(keyId) ?? { id: keyId, name: `key ${keyId}`, last_four: '' }),
      requested_model: row.requested_model,
      model: row.model,
      operation: row.operation,
      calls: Number(row.calls),
      input_tokens: Number(row.input_tokens ?? 0),
      output_tokens: Number(row.output_tokens ?? 0),
      cached_input_tokens: Number(row.cached_input_tokens ?? 0),
      cost: moneyJson(Number(row.cost_micros ?? 0)),
      latency_ms: outcome === 'open' || outcome === 'expired' || ended === null ? null : Math.max(0, ended - started),
      outcome,
      request_id: row.request_id,
      project: row.thread_id === null ? null : (projects.get(row.thread_id) ?? null),
      turn_id: row.turn_id,
    };
  });
  const more = rows.length > page.limit;
  return { entries, next_before: more ? Number(shown[shown.length - 1]!.last_id) : null };
}

/** Totals of the filtered calls of the period (all pages). */
export async function activityTotals(db: Kysely<Database>, customerId: number, filter: ActivityFilter, nowMs: number) {
  const row = await filtered(db, customerId, filter, nowMs)
    .select([sql<number>`count(*)`.as('calls'), sql<number>`sum(coalesce(cost_micros, 0))`.as('cost_micros')])
    .executeTakeFirst();
  return { calls: Number(row?.calls ?? 0), cost: moneyJson(Number(row?.cost_micros ?? 0)) };
}

export const CSV_COLUMNS = [
  'started_at',
  'kind',
  'key_id',
  'key_name',
  'requested_model',
  'model',
  'calls',
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'cost_usd',
  'latency_ms',
  'outcome',
  'request_id',
  'project_id',
  'turn_id',
] as const;

/** A CSV field: quoted when needed; text a spreadsheet would run as a formula gets a leading apostrophe. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(entry: ActivityEntry): string {
  const fields: (string | number | null)[] = [
    entry.started_at,
    entry.kind,
    entry.key?.id ?? null,
    entry.key?.name ?? null,
    entry.requested_model,
    entry.model,
    entry.calls,
    entry.input_tokens,
    entry.output_tokens,
    entry.cached_input_tokens,
    formatUsd(entry.cost.micros),
    entry.latency_ms,
    entry.outcome,
    entry.request_id,
    entry.project?.id ?? null,
    entry.turn_id,
  ];
  return fields.map(csvField).join(',');
}
