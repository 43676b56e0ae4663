/**
 * `GET /v1/responses/{id}?stream=true`: the Responses event stream of a stored response, rebuilt from the
 * stored object in the order a live stream has (created, in_progress, per output item: added, content deltas,
 * done; then the terminal event). Numbering is deterministic, so `starting_after=<sequence_number>` resumes a
 * replay exactly where the client left it.
 */
import { isJsonObject as isObject, type JsonObject } from '../../kernel/json.js';

export { TERMINAL_STATUSES } from '../protocols/responses/encode.js';

/** The opening events, known before the response has finished. */
export function openingEvents(response: JsonObject): JsonObject[] {
  const opening = { ...response, status: response.status === 'queued' ? 'queued' : 'in_progress', output: [] };
  return [
    { type: 'response.created', response: opening },
    { type: 'response.in_progress', response: { ...opening, status: 'in_progress' } },
  ];
}

function messageEvents(item: JsonObject, outputIndex: number): JsonObject[] {
  const itemId = item.id;
  const content = Array.isArray(item.content) ? item.content.filter(isObject) : [];
  const events: JsonObject[] = [
    { type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } },
  ];
  content.forEach((part, contentIndex) => {
    const located = { item_id: itemId, output_index: outputIndex, content_index: contentIndex };
    if (part.type === 'output_text') {
      const text = String(part.text ?? '');
      events.push({ type: 'response.content_part.added', ...located, part: { ...part, text: '' } });
      events.push({ type: 'response.output_text.delta', ...located, delta: text, logprobs: [] });
      events.push({ type: 'response.output_text.done', ...located, text, logprobs: [] });
    } else {
      events.push({ type: 'response.content_part.added', ...located, part });
    }
    events.push({ type: 'response.content_part.done', ...located, part });
  });
  return events;
}

function itemEvents(item: JsonObject, outputIndex: number): JsonObject[] {
  let events: JsonObject[];
  if (item.type === 'message') {
    events = messageEvents(item, outputIndex);
  } else if (item.type === 'function_call') {
    const located = { item_id: item.id, output_index: outputIndex };
    const argumentsText = String(item.arguments ?? '');
    events = [
      { type: 'response.output_item.added', output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } },
      { type: 'response.function_call_arguments.delta', ...located, delta: argumentsText },
      { type: 'response.function_call_arguments.done', ...located, arguments: argumentsText },
    ];
  } else if (item.type === 'custom_tool_call') {
    const located = { item_id: item.id, output_index: outputIndex };
    const input = String(item.input ?? '');
    events = [
      { type: 'response.output_item.added', output_index: outputIndex, item: { ...item, input: '' } },
      { type: 'response.custom_tool_call_input.delta', ...located, delta: input },
      { type: 'response.custom_tool_call_input.done', ...located, input },
    ];
  } else {
    events = [{ type: 'response.output_item.added', output_index: outputIndex, item }];
  }
  events.push({ type: 'response.output_item.done', output_index: outputIndex, item });
  return events;
}

function terminalType(status: unknown): string {
  if (status === 'completed') return 'response.completed';
  if (status === 'incomplete') return 'response.incomplete';
  // A cancelled response has no event of its own; it ends as a failure carrying `status: "cancelled"`.
  return 'response.failed';
}

/** The events after the opening ones, once the response has reached a terminal state. */
export function closingEvents(response: JsonObject): JsonObject[] {
  const output = Array.isArray(response.output) ? response.output.filter(isObject) : [];
  return [...output.flatMap((item, index) => itemEvents(item, index)), { type: terminalType(response.status), response }];
}

/** Numbers events from `firstSequence` and keeps those after `startingAfter`. */
export function numbered(events: JsonObject[], firstSequence: number, startingAfter: number | undefined): JsonObject[] {
  return events
    .map((event, index) => ({ ...event, sequence_number: firstSequence + index }))
    .filter((event) => startingAfter === undefined || event.sequence_number > startingAfter);
}
