/** Anthropic Messages replies (SSE events or one JSON body) → normalized parts. */
import { upstreamError, type NativeResponsesEvent, type StreamPart } from '../../normalized/index.js';
import { ToolCallTracker } from '../shared/custom-tools.js';
import { sseEventBatches } from '../shared/sse-decoder.js';
import { usageFromAnthropic } from './convert-usage.js';
import { finishFromAnthropic } from './map-stop-reason.js';
import type { AnthropicResponseBody, AnthropicStreamEvent } from './wire-types.js';

/** `native`: each upstream event is also yielded as a `native-event` part, before the normalized parts it gives. */
export interface AnthropicDecodeOptions {
  native: boolean;
}

export async function* decodeAnthropicStream(
  body: AsyncIterable<Buffer>,
  customNames: Set<string>,
  options: AnthropicDecodeOptions = { native: false },
): AsyncGenerator<StreamPart, void, undefined> {
  const tools = new ToolCallTracker(customNames);
  /** Content block index → tool call index, for tool_use blocks only. */
  const toolBlocks = new Map<number, number>();
  let started = false;
  let stopReason: string | null | undefined;
  for await (const batch of sseEventBatches(body)) {
    for (const message of batch) {
      const event = JSON.parse(message.data) as AnthropicStreamEvent;
      if (!started) {
        started = true;
        yield { type: 'start', upstreamId: event.message?.id };
      }
      if (options.native) yield { type: 'native-event', event: event as unknown as NativeResponsesEvent };
      switch (event.type) {
        case 'message_start':
          if (event.message?.usage) yield { type: 'usage', usage: usageFromAnthropic(event.message.usage) };
          break;
        case 'content_block_start': {
          const block = event.content_block;
          if (block?.type === 'tool_use') {
            const index = toolBlocks.size;
            toolBlocks.set(event.index ?? index, index);
            yield tools.start(index, block.id ?? '', block.name ?? '');
          } else if (block?.type === 'text' && block.text) {
            yield { type: 'text-delta', delta: block.text };
          }
          break;
        }
        case 'content_block_delta': {
          const delta = event.delta;
          if (delta?.type === 'text_delta' && delta.text) yield { type: 'text-delta', delta: delta.text };
          else if (delta?.type === 'thinking_delta' && delta.thinking) yield { type: 'reasoning-delta', delta: delta.thinking };
          else if (delta?.type === 'input_json_delta') {
            const index = toolBlocks.get(event.index ?? -1);
            const part = index === undefined ? undefined : tools.delta(index, delta.partial_json ?? '');
            if (part) yield part;
          }
          break;
        }
        case 'content_block_stop': {
          const index = toolBlocks.get(event.index ?? -1);
          if (index !== undefined) yield* tools.end(index);
          break;
        }
        case 'message_delta':
          if (event.delta?.stop_reason !== undefined) stopReason = event.delta.stop_reason;
          if (event.usage) yield { type: 'usage', usage: usageFromAnthropic(event.usage) };
          break;
        case 'message_stop':
          yield { type: 'finish', reason: finishFromAnthropic(stopReason) };
          return;
        case 'error':
          yield { type: 'error', error: anthropicStreamError(event) };
          return;
        default:
          break;
      }
    }
  }
  if (!started) yield { type: 'start' };
  yield { type: 'error', error: upstreamError({ kind: 'network' }) };
}

function anthropicStreamError(event: AnthropicStreamEvent) {
  if (event.error?.type === 'overloaded_error') return upstreamError({ kind: 'status', upstreamStatus: 529 });
  if (event.error?.type === 'rate_limit_error') return upstreamError({ kind: 'status', upstreamStatus: 429 });
  return upstreamError({ kind: 'protocol', message: event.error?.message });
}

export function* decodeAnthropicBody(
  body: AnthropicResponseBody,
  customNames: Set<string>,
  options: AnthropicDecodeOptions = { native: false },
): Generator<StreamPart, void, undefined> {
  const tools = new ToolCallTracker(customNames);
  yield { type: 'start', upstreamId: body.id };
  if (options.native) yield { type: 'native-event', event: body as unknown as NativeResponsesEvent };
  let toolIndex = 0;
  for (const block of body.content ?? []) {
    if (block.type === 'text') yield { type: 'text-delta', delta: (block as { text: string }).text };
    else if (block.type === 'thinking') yield { type: 'reasoning-delta', delta: (block as { thinking: string }).thinking };
    else if (block.type === 'tool_use') {
      const call = block as { id: string; name: string; input: unknown };
      yield tools.start(toolIndex, call.id, call.name);
      const part = tools.delta(toolIndex, JSON.stringify(call.input ?? {}));
      if (part) yield part;
      yield* tools.end(toolIndex);
      toolIndex += 1;
    }
  }
  if (body.usage) yield { type: 'usage', usage: usageFromAnthropic(body.usage) };
  yield { type: 'finish', reason: finishFromAnthropic(body.stop_reason) };
}
