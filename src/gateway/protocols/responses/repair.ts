/**
 * Responses input whose tool calls have no output: a history cut short by a crash (the app-server killed while a
 * command ran leaves the command's call without its result, and Codex sends that history on every later turn).
 * Codex itself mends such a history by answering each unanswered call with "aborted"; the gateway does the same
 * for every request it decodes, so a Responses, chat or Anthropic destination receives a well-formed history
 * instead of the thread failing for good on `missing tool_call_id`.
 */
import { isObject } from '../shared/decode-helpers.js';

/** The output Codex records for a call it never ran to the end. */
export const ABORTED_TOOL_OUTPUT = 'aborted';

const OUTPUT_OF: Record<string, string> = {
  function_call: 'function_call_output',
  custom_tool_call: 'custom_tool_call_output',
};

/** `items` with an aborted output right after each call that no output answers; the same array when none is missing. */
export function withAbortedToolOutputs(items: unknown[]): unknown[] {
  const answered = new Set<string>();
  for (const item of items) {
    if (isObject(item) && typeof item.call_id === 'string' && typeof item.type === 'string' && item.type.endsWith('_output')) {
      answered.add(item.call_id);
    }
  }
  let repaired: unknown[] | null = null;
  items.forEach((item, index) => {
    repaired?.push(item);
    if (!isObject(item) || typeof item.type !== 'string' || typeof item.call_id !== 'string') return;
    const outputType = OUTPUT_OF[item.type];
    if (outputType === undefined || answered.has(item.call_id)) return;
    repaired ??= items.slice(0, index + 1);
    repaired.push({ type: outputType, call_id: item.call_id, output: ABORTED_TOOL_OUTPUT });
    answered.add(item.call_id);
  });
  return repaired ?? items;
}
