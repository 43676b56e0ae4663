/**
 * Key policy input: the body fields a caller may set on a key (name, allowed surfaces and models, spending
 * limit and period, expiry, rate-limit plan), their JSON schemas, and the checks every surface that edits a
 * policy reuses. Schemas reject unknown fields, so a body can never set owner, balance, role or kind.
 */
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { validationError, type ValidationIssue } from '../kernel/errors.js';
import type { ApiKeyRow } from './key-repository.js';
import { SURFACES, type KeyPolicy, type Surface } from './principal.js';

const SPENDING_PERIODS = ['day', 'week', 'month'] as const;
export type SpendingPeriod = (typeof SPENDING_PERIODS)[number];

/** The policy fields as JSON schemas; `nullable` variants clear a setting in updates. */
export const KeyPolicyFieldSchemas = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  allowed_surfaces: Type.Array(Type.Unsafe<Surface>({ type: 'string', enum: [...SURFACES] }), {
    minItems: 1,
    uniqueItems: true,
    description: 'Surfaces the key may use; absent = every surface except rpc.',
  }),
  allowed_models: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
    minItems: 1,
    maxItems: 100,
    uniqueItems: true,
    description: 'Model ids or aliases the key may use; absent = all.',
  }),
  spending_limit_micros: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Integer micro-USD.' }),
  spending_period: Type.Unsafe<SpendingPeriod>({
    type: 'string',
    enum: [...SPENDING_PERIODS],
    description: 'Period of the spending limit; absent = lifetime of the key.',
  }),
  expires_at: Type.String({ format: 'date-time', description: 'ISO 8601 date-time; must be in the future.' }),
  rate_limit_plan: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }),
};

const fields = KeyPolicyFieldSchemas;

/**
 * The schema plus `null`, as a type list rather than `anyOf`: with type coercion on, an `anyOf` branch may
 * coerce (`null` to 0, 0 to `null`) before another branch is tried, while a type list coerces only values that
 * match none of the types.
 */
function orNull<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, enum: allowed, ...rest } = schema as unknown as { type: string; enum?: unknown[] };
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'], ...(allowed ? { enum: [...allowed, null] } : {}) });
}

export const UserApiKeyCreateBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    allowed_surfaces: Type.Optional(fields.allowed_surfaces),
    allowed_models: Type.Optional(fields.allowed_models),
    spending_limit_micros: Type.Optional(fields.spending_limit_micros),
    spending_period: Type.Optional(fields.spending_period),
    expires_at: Type.Optional(fields.expires_at),
    rate_limit_plan: Type.Optional(fields.rate_limit_plan),
  },
  { additionalProperties: false },
);

/** Update body: every field optional; `null` clears the setting. At least one field. */
export const UserApiKeyUpdateBody = Type.Object(
  {
    name: Type.Optional(orNull(fields.name)),
    allowed_surfaces: Type.Optional(orNull(fields.allowed_surfaces)),
    allowed_models: Type.Optional(orNull(fields.allowed_models)),
    spending_limit_micros: Type.Optional(orNull(fields.spending_limit_micros)),
    spending_period: Type.Optional(orNull(fields.spending_period)),
    expires_at: Type.Optional(orNull(fields.expires_at)),
    rate_limit_plan: Type.Optional(orNull(fields.rate_limit_plan)),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** Policy input as received: a field left out keeps its value; `null` clears it. */
export type KeyPolicyInput = Static<typeof UserApiKeyUpdateBody>;

export interface PolicyCheckOptions {
  nowMs: number;
  /** Model ids and aliases that exist; when given, unknown models in `allowed_models` are refused. */
  knownModels?: ReadonlySet<string>;
  /** Configured rate-limit plans; when given, `rate_limit_plan` must name one of them. */
  knownRateLimitPlans?: ReadonlySet<string>;
  /** Where the fields sit in the request, for the `loc` of validation issues. Default `['body']`. */
  location?: (string | number)[];
}

export interface KeySettings {
  name: string | null;
  policy: KeyPolicy;
  expiresAt: number | null;
}

/**
 * Applies `input` over `current` (a new key starts from an empty policy) and checks the result: an expiry in
 * the future, known models, and a spending period only together with a spending limit. Throws a 422 naming
 * every bad field.
 */
export function applyPolicyInput(current: KeySettings, input: KeyPolicyInput, options: PolicyCheckOptions): KeySettings {
  const at = options.location ?? ['body'];
  const issues: ValidationIssue[] = [];
  const policy: KeyPolicy = { ...current.policy };
  const set = <K extends keyof KeyPolicy>(key: K, value: KeyPolicy[K] | null | undefined): void => {
    if (value === undefined) return;
    if (value === null) delete policy[key];
    else policy[key] = value;
  };
  set('surfaces', input.allowed_surfaces as Surface[] | null | undefined);
  set('models', input.allowed_models);
  set('spendingLimitMicros', input.spending_limit_micros);
  set('spendingPeriod', input.spending_period);
  set('rateLimitPlan', input.rate_limit_plan);

  let expiresAt = current.expiresAt;
  if (input.expires_at === null) expiresAt = null;
  else if (input.expires_at !== undefined) {
    const parsed = Date.parse(input.expires_at);
    if (Number.isNaN(parsed)) issues.push({ loc: [...at, 'expires_at'], msg: 'Not a valid date-time', type: 'datetime_parsing' });
    else if (parsed <= options.nowMs) issues.push({ loc: [...at, 'expires_at'], msg: 'Must be in the future', type: 'datetime_future' });
    else expiresAt = parsed;
  }
  if (options.knownModels && input.allowed_models) {
    input.allowed_models.forEach((model, index) => {
      if (!options.knownModels!.has(model)) {
        issues.push({ loc: [...at, 'allowed_models', index], msg: `Unknown model "${model}"`, type: 'value_error' });
      }
    });
  }
  if (options.knownRateLimitPlans && typeof input.rate_limit_plan === 'string' && !options.knownRateLimitPlans.has(input.rate_limit_plan)) {
    issues.push({ loc: [...at, 'rate_limit_plan'], msg: `Unknown rate-limit plan "${input.rate_limit_plan}"`, type: 'value_error' });
  }
  if (policy.spendingPeriod !== undefined && policy.spendingLimitMicros === undefined) {
    issues.push({ loc: [...at, 'spending_period'], msg: 'A spending period needs spending_limit_micros', type: 'value_error' });
  }
  if (issues.length > 0) throw validationError(issues);
  const name = input.name === undefined ? current.name : input.name;
  return { name, policy, expiresAt };
}

export type KeyKindLabel = 'system_token' | 'username_token' | 'user_api_key' | 'managed_key' | 'agent_runtime';

const KIND_LABELS: Record<ApiKeyRow['kind'], KeyKindLabel> = {
  wallet: 'system_token',
  username: 'username_token',
  user: 'user_api_key',
  managed: 'managed_key',
};

export function kindLabel(kind: ApiKeyRow['kind']): KeyKindLabel {
  return KIND_LABELS[kind];
}

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The public view of a key policy, in the same field names as the request bodies. */
export function policyView(policy: KeyPolicy) {
  return {
    allowed_surfaces: policy.surfaces ?? null,
    allowed_models: policy.models ?? null,
    spending_limit_micros: policy.spendingLimitMicros ?? null,
    spending_period: policy.spendingPeriod ?? null,
    rate_limit_plan: policy.rateLimitPlan ?? null,
  };
}

/** What a client may see of a key: never the secret nor its hash. */
/**
 * `system`: issued by the service, not by the customer (the System Token and username token made at sign-up, the
 * agent runtime key the app-server uses); the dashboard keeps them out of the customer's own keys.
 */
export function keyView(row: ApiKeyRow, policy: KeyPolicy) {
  return {
    id: row.id,
    kind: policy.agentRuntime ? ('agent_runtime' as const) : KIND_LABELS[row.kind],
    system: row.kind === 'wallet' || row.kind === 'username',
    name: row.name,
    prefix: row.prefix,
    last_four: row.last_four,
    policy: policyView(policy),
    created_at: isoOrNull(row.created_at),
    expires_at: isoOrNull(row.expires_at),
    last_used_at: isoOrNull(row.last_used_at),
  };
}
export type KeyView = ReturnType<typeof keyView>;
