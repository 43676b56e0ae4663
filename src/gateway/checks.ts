/** Request checks that hold for every protocol and destination: tool results present, capabilities honoured. */
import { AppError } from '../kernel/errors.js';
import { hasImages, webSearchCapable, type Destination, type NormalizedRequest } from './normalized/index.js';

/**
 * Every assistant tool call must be answered by a tool result before the next assistant turn: a history with a
 * missing result would make the model believe the tool ran. The message names the first missing id.
 */
export function checkToolResults(request: NormalizedRequest): void {
  const { messages } = request;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    if (message.role !== 'assistant' || message.toolCalls.length === 0) continue;
    const answered = new Set<string>();
    for (let next = index + 1; next < messages.length; next += 1) {
      const later = messages[next]!;
      if (later.role === 'assistant') break;
      if (later.role === 'tool') answered.add(later.toolCallId);
    }
    for (const call of message.toolCalls) {
      if (!answered.has(call.id)) {
        throw new AppError(
          'BAD_REQUEST',
          `The assistant message with tool calls must be followed by a tool result for each call; missing tool_call_id: ${call.id}`,
          { details: { param: 'messages', missing_tool_call_id: call.id } },
        );
      }
    }
  }
}

/** Images and tools go only where the destination supports them; nothing is stripped to force a success. */
export function checkCapabilities(destination: Destination, request: NormalizedRequest): void {
  const { capabilities } = destination.model;
  if (capabilities.embeddings) {
    throw new AppError('BAD_REQUEST', `Model ${destination.requestedModel} is an embedding model; use POST /v1/embeddings`, {
      details: { param: 'model' },
    });
  }
  if (!capabilities.images && hasImages(request)) {
    throw new AppError(
      'BAD_REQUEST',
      `Model ${destination.requestedModel} does not accept image input; remove the images or choose a model with image support`,
      {
        details: { param: 'model' },
      },
    );
  }
  const usesTools = request.tools.length > 0 || request.messages.some((message) => message.role === 'tool');
  if (!capabilities.tools && usesTools) {
    throw new AppError(
      'BAD_REQUEST',
      `Model ${destination.requestedModel} does not support tools; remove the tools or choose a model with tool support`,
      {
        details: { param: 'tools' },
      },
    );
  }
}

const isWebSearch = (tool: NormalizedRequest['tools'][number]): boolean => tool.type === 'builtin' && tool.name === 'web_search';

/**
 * Web search goes only to a destination that runs it itself. An API caller who asked for it on another model gets
 * a clear 400; an agent turn (whose model catalog may offer the tool everywhere) goes on without it.
 */
export function webSearchFor(destination: Destination, request: NormalizedRequest, options: { agentTurn: boolean }): NormalizedRequest {
  if (!request.tools.some(isWebSearch) || webSearchCapable(destination)) return request;
  if (options.agentTurn) return { ...request, tools: request.tools.filter((tool) => !isWebSearch(tool)) };
  throw new AppError(
    'BAD_REQUEST',
    `Model ${destination.requestedModel} does not offer web search; remove the web_search tool or choose a model with web search`,
    {
      details: { param: 'tools' },
    },
  );
}
