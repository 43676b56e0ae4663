/** OpenAI chat completions replies (SSE chunks or one JSON body) → normalized parts. */
import { upstreamError, type StreamPart } from '../../normalized/index.js';
import { ToolCallTracker } from '../shared/custom-tools.js';
import { sseEventBatches } from '../shared/sse-decoder.js';
import { usageFromChat } from './convert-usage.js';
import { finishFromChat } from './map-stop-reason.js';
import type { ChatChunk, ChatCompletionBody } from './wire-types.js';

/** `native`: each chunk is also yielded as it came (a chat caller's own body was sent; its reply is relayed). */
export async function* decodeChatStream(
  body: AsyncIterable<Buffer>,
  customNames: Set<string>,
  native = false,
): AsyncGenerator<StreamPart, void, undefined> {
  const tools = new ToolCallTracker(customNames);
  let started = false;
  let finished: StreamPart | undefined;
  let sawDone = false;
  events: for await (const batch of sseEventBatches(body)) {
    for (const event of batch) {
      if (event.data === '[DONE]') {
        sawDone = true;
        break events;
      }
      const chunk = JSON.parse(event.data) as ChatChunk;
      if (!started) {
        started = true;
        yield { type: 'start', upstreamId: chunk.id };
      }
      if (native && !chunk.error) yield { type: 'native-chunk', chunk: chunk as Record<string, unknown> };
      if (chunk.error) {
        yield { type: 'error', error: upstreamError({ kind: 'protocol', message: chunk.error.message }) };
        return;
      }
      const choice = chunk.choices?.[0];
      const delta = choice?.delta;
      if (delta?.reasoning_content) yield { type: 'reasoning-delta', delta: delta.reasoning_content };
      if (delta?.content) yield { type: 'text-delta', delta: delta.content };
      for (const call of delta?.tool_calls ?? []) {
        const index = call.index ?? 0;
        if (call.id !== undefined) yield tools.start(index, call.id, call.function?.name ?? '');
        const part = tools.delta(index, call.function?.arguments ?? '');
        if (part) yield part;
      }
      if (choice?.finish_reason) {
        yield* tools.endAll();
        finished = { type: 'finish', reason: finishFromChat(choice.finish_reason) };
      }
      if (chunk.usage) yield { type: 'usage', usage: usageFromChat(chunk.usage) };
    }
  }
  if (!started) yield { type: 'start' };
  if (finished && sawDone) {
    yield finished;
  } else {
    yield { type: 'error', error: upstreamError({ kind: 'network' }) };
  }
}

export function* decodeChatBody(
  body: ChatCompletionBody,
  customNames: Set<string>,
  native = false,
): Generator<StreamPart, void, undefined> {
  const tools = new ToolCallTracker(customNames);
  yield { type: 'start', upstreamId: body.id };
  if (native) yield { type: 'native-chunk', chunk: body as Record<string, unknown> };
  const choice = body.choices?.[0];
  const message = choice?.message;
  if (message?.reasoning_content) yield { type: 'reasoning-delta', delta: message.reasoning_content };
  if (message?.content) yield { type: 'text-delta', delta: message.content };
  for (const [index, call] of (message?.tool_calls ?? []).entries()) {
    yield tools.start(index, call.id, call.function.name);
    const part = tools.delta(index, call.function.arguments);
    if (part) yield part;
    yield* tools.end(index);
  }
  if (body.usage) yield { type: 'usage', usage: usageFromChat(body.usage) };
  yield { type: 'finish', reason: finishFromChat(choice?.finish_reason) };
}
