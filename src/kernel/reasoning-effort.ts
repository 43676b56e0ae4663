/**
 * The reasoning efforts this service knows, least to most: what the gateway accepts as `reasoning_effort` /
 * `reasoning.effort`, what an agent turn may name for a model the catalog does not describe, and what the
 * customer's toolbox offers. The one list; the pages get it through the generated API types.
 */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;

export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export function isReasoningEffort(value: unknown): value is ReasoningEffort {
  return typeof value === 'string' && (REASONING_EFFORTS as readonly string[]).includes(value);
}
