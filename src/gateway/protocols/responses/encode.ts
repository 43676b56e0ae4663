/**
 * The fields every Responses `response` object carries: usage and the request fields it echoes. The object of a
 * whole call is folded in run.ts, the event stream built in stream.ts.
 */
import type { Usage } from '../../normalized/index.js';
import type { Json } from '../shared/decode-helpers.js';

/** The statuses a response ends in (anything else is still queued or in progress). */
export const TERMINAL_STATUSES = ['completed', 'failed', 'incomplete', 'cancelled'];

export function responsesUsage(usage: Usage | undefined): Json | null {
  if (!usage) return null;
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** The request fields a Response object echoes back. */
export function responseEcho(body: Json): Json {
  return {
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: body.reasoning ?? null,
    store: body.store !== false,
    temperature: body.temperature ?? null,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? null,
    truncation: body.truncation ?? 'disabled',
    background: body.background === true,
    user: body.user ?? null,
  };
}
