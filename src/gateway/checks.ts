/** Request checks that hold for every protocol and destination: tool results present, capabilities honoured. */
import { AppError } from '../kernel/errors.js';
import {
  hasImages,
  webSearchCapable,
  type Destination,
  type NativeBody,
  type NormalizedRequest,
  type ToolSpec,
} from './normalized/index.js';

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

/** The hosted tools of a request the destination does not run, and the request without them. */
export interface HostedTools {
  request: NormalizedRequest;
  /** Names of the tools left out (`web_search`), for the `x-switchyard-dropped-tools` header. */
  dropped: string[];
}

/** A hosted tool the destination runs: web search where it is offered, Anthropic's own versioned server tools. */
function runs(destination: Destination, tool: Extract<ToolSpec, { type: 'builtin' }>, native: boolean): boolean {
  if (tool.name === 'web_search') return webSearchCapable(destination);
  // A native body goes to an upstream of its own protocol, which runs its own hosted tools.
  if (native) return true;
  const versioned = tool.config.type;
  return destination.provider.kind === 'anthropic' && typeof versioned === 'string' && /_\d{8}$/.test(versioned);
}

/**
 * Hosted tools go only to a destination that runs them; elsewhere they are left out and named, and the call goes
 * on (Codex sends `web_search` on every turn, whatever the model). A model whose policy is `refuse` answers 400 to
 * an API caller instead; an agent turn (whose catalog may offer the tool everywhere) always goes on. A native body
 * (Responses to a Responses model, chat to an OpenAI-kind model) loses the same tools, so both forms agree.
 */
export function hostedToolsFor(
  destination: Destination,
  request: NormalizedRequest,
  options: { agentTurn: boolean; native: boolean },
): HostedTools {
  const dropped = request.tools
    .filter((tool) => tool.type === 'builtin' && !runs(destination, tool, options.native))
    .map((tool) => tool.name);
  if (dropped.length === 0) return { request, dropped };
  if (destination.model.unsupportedHostedTools === 'refuse' && !options.agentTurn) {
    const names = [...new Set(dropped)].join(', ');
    throw new AppError(
      'BAD_REQUEST',
      `Model ${destination.requestedModel} does not offer ${names === 'web_search' ? 'web search' : names}; remove the ${names} tool or choose a model that runs it`,
      { details: { param: 'tools' } },
    );
  }
  const tools = request.tools.filter((tool) => tool.type !== 'builtin' || runs(destination, tool, options.native));
  return {
    request: { ...request, tools, native: request.native && withoutHostedTools(request.native, new Set(dropped)) },
    dropped: [...new Set(dropped)],
  };
}

/** The native body without the named hosted tools (Responses `tools[]` entries, chat `web_search_options`). */
function withoutHostedTools(native: NativeBody, names: Set<string>): NativeBody {
  const body = { ...native.body };
  if (native.protocol === 'openai-chat') {
    if (names.has('web_search')) delete body.web_search_options;
    return { ...native, body };
  }
  if (!Array.isArray(body.tools)) return native;
  body.tools = body.tools.filter((tool: unknown) => {
    const type = typeof tool === 'object' && tool !== null ? (tool as { type?: unknown }).type : undefined;
    const name = typeof type === 'string' && type.startsWith('web_search') ? 'web_search' : type;
    return typeof name !== 'string' || !names.has(name);
  });
  return { ...native, body };
}
