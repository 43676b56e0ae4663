/**
 * A native Responses upstream → `native-event` parts (each event parsed, never text-edited) plus the normalized
 * parts execute meters by. A stream that ends without a terminal event is an error, never a quiet success.
 */
import { upstreamError, type NativeResponsesEvent, type StreamPart } from '../../normalized/index.js';
import { sseEventBatches } from '../shared/sse-decoder.js';
import { usageFromResponses } from './convert-usage.js';
import { finishFromResponse } from './map-stop-reason.js';
import type { ResponsesUsage } from './wire-types.js';

interface ResponseObject {
  id?: string;
  status?: string;
  usage?: ResponsesUsage | null;
  error?: { message?: string } | null;
  incomplete_details?: { reason?: string } | null;
  output?: { type?: string }[];
}

interface ItemEvent {
  output_index?: number;
  item?: { type?: string; id?: string; call_id?: string; name?: string };
  delta?: string;
  response?: ResponseObject;
  message?: string;
}

function* terminalParts(response: ResponseObject): Generator<StreamPart> {
  if (response.usage) yield { type: 'usage', usage: usageFromResponses(response.usage) };
  if (response.status === 'failed' || response.status === 'cancelled') {
    yield {
      type: 'error',
      error: upstreamError({ kind: 'protocol', message: response.error?.message ?? `The upstream response ${response.status}` }),
    };
    return;
  }
  yield { type: 'finish', reason: finishFromResponse(response) };
}

/** Normalized parts derived from one native event; returns true when the event ended the response. */
function* derivedParts(event: NativeResponsesEvent & ItemEvent, toolIndexes: Map<number, number>): Generator<StreamPart, boolean> {
  switch (event.type) {
    case 'response.output_text.delta':
      if (event.delta) yield { type: 'text-delta', delta: event.delta };
      return false;
    case 'response.reasoning_summary_text.delta':
    case 'response.reasoning_text.delta':
      if (event.delta) yield { type: 'reasoning-delta', delta: event.delta };
      return false;
    case 'response.output_item.added': {
      const item = event.item;
      if (item?.type === 'function_call' || item?.type === 'custom_tool_call') {
        const index = toolIndexes.size;
        toolIndexes.set(event.output_index ?? index, index);
        yield {
          type: 'tool-call-start',
          index,
          id: item.call_id ?? item.id ?? '',
          name: item.name ?? '',
          kind: item.type === 'function_call' ? 'function' : 'custom',
        };
      }
      return false;
    }
    case 'response.function_call_arguments.delta':
    case 'response.custom_tool_call_input.delta': {
      const index = toolIndexes.get(event.output_index ?? -1);
      if (index !== undefined && event.delta) yield { type: 'tool-call-delta', index, delta: event.delta };
      return false;
    }
    case 'response.output_item.done': {
      const index = toolIndexes.get(event.output_index ?? -1);
      if (index !== undefined) yield { type: 'tool-call-end', index };
      return false;
    }
    case 'response.completed':
    case 'response.incomplete':
    case 'response.failed':
    case 'response.cancelled':
      yield* terminalParts(event.response ?? {});
      return true;
    case 'error':
      yield { type: 'error', error: upstreamError({ kind: 'protocol', message: event.message }) };
      return true;
    default:
      return false;
  }
}

export async function* decodeResponsesStream(body: AsyncIterable<Buffer>): AsyncGenerator<StreamPart, void, undefined> {
  const toolIndexes = new Map<number, number>();
  let started = false;
  for await (const batch of sseEventBatches(body)) {
    for (const message of batch) {
      const event = JSON.parse(message.data) as NativeResponsesEvent & ItemEvent;
      if (typeof event.type !== 'string') event.type = message.event ?? 'message';
      if (!started) {
        started = true;
        yield { type: 'start', upstreamId: event.response?.id };
      }
      yield { type: 'native-event', event };
      if (yield* derivedParts(event, toolIndexes)) return;
    }
  }
  if (!started) yield { type: 'start' };
  yield { type: 'error', error: upstreamError({ kind: 'network' }) };
}

/** A non-streamed Responses reply: the response object, presented as its `response.completed` event. */
export function* decodeResponsesBody(response: ResponseObject & Record<string, unknown>): Generator<StreamPart, void, undefined> {
  yield { type: 'start', upstreamId: response.id };
  const terminal =
    response.status === 'failed' ? 'response.failed' : response.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
  yield { type: 'native-event', event: { type: terminal, response } };
  yield* terminalParts(response);
}
