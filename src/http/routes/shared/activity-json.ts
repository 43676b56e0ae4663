/**
 * The activity routes' query and answer schemas (`/api/v1/activity*` for the customer, `/api/admin/customers/{id}/
 * activity*` for an operator): one definition, so both read and answer alike.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ACTIVITY_OUTCOMES, type ActivityFilter } from '../../../billing/activity.js';

const Money = Type.Object({ micros: Type.Integer(), usd: Type.String({ examples: ['0.000420'] }) });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ActivityFilterQuery = {
  days: Type.Integer({ minimum: 1, maximum: 365, default: 30, description: 'The last N UTC days, today included.' }),
  key_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Only calls made with this key.' })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Requested or resolved model id.' })),
  outcome: Type.Optional(Type.Union(ACTIVITY_OUTCOMES.map((value) => Type.Literal(value)))),
  kind: Type.Optional(Type.Union([Type.Literal('call'), Type.Literal('agent_turn')])),
};

export const ActivityQuery = Type.Object({
  ...ActivityFilterQuery,
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  before: Type.Optional(
    Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The `next_before` of the previous page.' }),
  ),
});
export const ActivityCsvQuery = Type.Object(ActivityFilterQuery);

export const ActivityEntryJson = Type.Object(
  {
    id: Type.String({ description: 'The turn id of an agent turn, `call_<n>` for a call.' }),
    kind: Type.Union([Type.Literal('call'), Type.Literal('agent_turn')]),
    started_at: Type.String({ format: 'date-time' }),
    key: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String(), last_four: Type.String() }), Type.Null()]),
    requested_model: Type.String({ description: 'What the caller asked for (an alias such as power-ai, or a model id).' }),
    model: Type.String({ description: 'The configured model it resolved to.' }),
    operation: Type.String({ examples: ['chat'] }),
    calls: Type.Integer({ description: 'Billed model calls in this entry (an agent turn makes several).' }),
    input_tokens: Type.Integer(),
    output_tokens: Type.Integer(),
    cached_input_tokens: Type.Integer(),
    cost: Money,
    latency_ms: Type.Union([Type.Integer(), Type.Null()], { description: 'From the hold to the end of the answer; null while open.' }),
    outcome: Type.Union(ACTIVITY_OUTCOMES.map((value) => Type.Literal(value))),
    request_id: Type.String(),
    project: Type.Union([Type.Object({ id: Type.String(), name: Nullable(Type.String()) }), Type.Null()]),
    turn_id: Nullable(Type.String()),
  },
  {
    examples: [
      {
        id: 'call_42',
        kind: 'call',
        started_at: '2026-11-27T10:15:02.113Z',
        key: { id: 7, name: 'laptop', last_four: 'x9Qa' },
        requested_model: 'power-ai',
        model: 'gpt-4.1-mini',
        operation: 'chat',
        calls: 1,
        input_tokens: 812,
        output_tokens: 96,
        cached_input_tokens: 0,
        cost: { micros: 479, usd: '0.000479' },
        latency_ms: 1840,
        outcome: 'completed',
        request_id: 'req_4f1c0e2b9a7d',
        project: null,
        turn_id: null,
      },
    ],
  },
);

export const ActivityPageJson = Type.Object({
  entries: Type.Array(ActivityEntryJson),
  next_before: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as `before` for the next page; null on the last.' }),
  totals: Type.Object({ calls: Type.Integer(), cost: Money }, { description: 'All filtered calls of the period, every page.' }),
});

/** The route query as the read model's filter. */
export function activityFilter(query: Static<typeof ActivityCsvQuery>): ActivityFilter {
  return { days: query.days, keyId: query.key_id, model: query.model, outcome: query.outcome, kind: query.kind };
}

/** Most entries one CSV export holds. */
export const CSV_ROW_LIMIT = 10_000;
