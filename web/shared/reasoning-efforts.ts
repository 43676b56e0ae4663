/**
 * The reasoning efforts a page offers, least to most. The list is the service's (src/kernel/reasoning-effort.ts),
 * as its toolbox route accepts them in the generated API types: a change there fails this file's type check until
 * the list here matches.
 */
import type { paths } from './api-schema';

type ToolboxBody = NonNullable<paths['/api/v1/toolbox']['post']['requestBody']>['content']['application/json'];
export type ReasoningEffort = NonNullable<ToolboxBody['reasoningEffort']>;

export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const satisfies readonly ReasoningEffort[];

/** Every effort the service knows is listed (an effort missing above makes this a type error). */
const everyEffort: [Exclude<ReasoningEffort, (typeof REASONING_EFFORTS)[number]>] extends [never] ? true : never = true;
void everyEffort;

export const EFFORT_LABELS: Record<ReasoningEffort, string> = {
  none: 'None',
  minimal: 'Minimal',
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  xhigh: 'Extra high',
};
