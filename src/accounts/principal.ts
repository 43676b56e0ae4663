/** Who is calling: the result of resolving a bearer value (see identity.ts). */
import type { ApiKeyKind } from '../storage/tables/chassis.js';

/** Surfaces a key may be limited to. `rpc` (raw JSON-RPC passthrough) is never granted implicitly. */
export const SURFACES = ['gateway', 'projects', 'account', 'rpc'] as const;
export type Surface = (typeof SURFACES)[number];

export interface KeyPolicy {
  /** Allowed surfaces; absent = every surface except `rpc`. */
  surfaces?: Surface[];
  /** Allowed model ids or aliases; absent = all. */
  models?: string[];
  spendingLimitMicros?: number;
  /** Period of the spending limit; absent = lifetime of the key. */
  spendingPeriod?: 'day' | 'week' | 'month';
  /** Rate-limit plan name (see config `rateLimits`). */
  rateLimitPlan?: string;
  /** Grants the raw JSON-RPC passthrough. */
  rpc?: boolean;
  /** Set on the key a customer's app-server uses: its model calls are billed to the agent (`projects`) surface. */
  agentRuntime?: boolean;
}

export interface OperatorPrincipal {
  kind: 'operator';
  source: 'static' | 'managed';
  keyId: number | null;
}

export interface CustomerPrincipal {
  kind: 'customer';
  customerId: number;
  keyId: number;
  keyKind: ApiKeyKind;
  policy: KeyPolicy;
  vip: boolean;
  /** Set when this principal acts for a running agent turn (a model request of its app-server). */
  agentTurn?: AgentTurnRef;
}

/** The agent turn a model request belongs to (see turn-principals.ts). */
export interface AgentTurnRef {
  threadId: string;
  /** The running turn, once its start answered (null while it starts: a model request can come before). */
  turnId: string | null;
}

export type Principal = OperatorPrincipal | CustomerPrincipal;

export function parsePolicy(json: string): KeyPolicy {
  try {
    const value = JSON.parse(json) as unknown;
    return value !== null && typeof value === 'object' ? (value as KeyPolicy) : {};
  } catch {
    return {};
  }
}

export function surfaceAllowed(policy: KeyPolicy, surface: Surface): boolean {
  if (surface === 'rpc') return policy.rpc === true || (policy.surfaces?.includes('rpc') ?? false);
  return policy.surfaces === undefined || policy.surfaces.includes(surface);
}
