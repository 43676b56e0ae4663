/**
 * The operator's usage export, `GET /api/admin/usage/export`: settled calls or agent turns of a period (and
 * optionally one customer) as JSON lines or CSV, a page at a time; `x-next-cursor` names the next page.
 */
import { Type } from '@sinclair/typebox';
import type { BillingServices } from '../../../../billing/index.js';
import { toCsv } from '../../../../billing/usage-export.js';
import type { Clock } from '../../../../kernel/clock.js';
import { validationError } from '../../../../kernel/errors.js';
import type { App } from '../../../types.js';

const operator = { auth: 'operator', surface: 'account' } as const;
const DAY_MS = 24 * 3600_000;

export const CALL_COLUMNS = [
  'call_id',
  'request_id',
  'client_request_id',
  'customer_id',
  'key_id',
  'surface',
  'operation',
  'model',
  'requested_model',
  'thread_id',
  'turn_id',
  'outcome',
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'usage_source',
  'cost_micros',
  'cost_usd',
  'covered_plan',
  'created_at',
  'settled_at',
] as const;
export const TURN_COLUMNS = [
  'customer_id',
  'thread_id',
  'turn_id',
  'model_calls',
  'input_tokens',
  'output_tokens',
  'cost_micros',
  'cost_usd',
  'first_call_at',
  'last_settled_at',
] as const;

export interface AdminUsageRouteDeps {
  billing: Pick<BillingServices, 'exportUsage'>;
  clock: Clock;
}

function timeOf(value: string | undefined, name: string, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isSafeInteger(ms))
    throw validationError([{ loc: ['query', name], msg: 'must be an ISO 8601 time or milliseconds since the epoch', type: 'value_error' }]);
  return ms;
}

export async function adminUsageRoutes(app: App, deps: AdminUsageRouteDeps): Promise<void> {
  app.get(
    '/usage/export',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary: 'Export settled calls or agent turns of a period as JSON lines or CSV (paged: x-next-cursor)',
        querystring: Type.Object(
          {
            kind: Type.Union([Type.Literal('calls'), Type.Literal('turns')], { default: 'calls' }),
            format: Type.Union([Type.Literal('jsonl'), Type.Literal('csv')], { default: 'jsonl' }),
            from: Type.Optional(Type.String({ description: 'Settled at or after (ISO 8601 or epoch ms); default 30 days before `to`' })),
            to: Type.Optional(Type.String({ description: 'Settled before (ISO 8601 or epoch ms); default now' })),
            customer_id: Type.Optional(Type.Integer({ minimum: 1 })),
            cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
            limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 1_000 }),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const query = request.query;
      const toMs = timeOf(query.to, 'to', deps.clock.nowMs());
      const fromMs = timeOf(query.from, 'from', toMs - 30 * DAY_MS);
      if (fromMs >= toMs) throw validationError([{ loc: ['query', 'from'], msg: 'must be before `to`', type: 'value_error' }]);
      const page = await deps.billing.exportUsage(query.kind, {
        fromMs,
        toMs,
        customerId: query.customer_id,
        cursor: query.cursor,
        limit: query.limit,
      });
      if (page.nextCursor !== null) reply.header('x-next-cursor', page.nextCursor);
      reply.header('x-record-count', String(page.records.length));
      const records = page.records as unknown as Record<string, unknown>[];
      if (query.format === 'csv') {
        return reply.type('text/csv; charset=utf-8').send(toCsv(records, query.kind === 'calls' ? CALL_COLUMNS : TURN_COLUMNS, true));
      }
      return reply.type('application/x-ndjson; charset=utf-8').send(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    },
  );
}
