/** OpenAI chat completions body → normalized request. */
import { AppError } from '../../../kernel/errors.js';
import {
  textOf,
  type ContentPart,
  type Message,
  type NormalizedRequest,
  type ToolCall,
  type ToolChoice,
  type ToolSpec,
} from '../../normalized/index.js';
import {
  invalid,
  isObject,
  optionalInteger,
  optionalNumber,
  reasoningEffort,
  responseFormat,
  stopList,
  type Json,
} from '../shared/decode-helpers.js';
import { parseMetadata } from '../../stored/metadata.js';

function contentParts(content: unknown, loc: (string | number)[]): ContentPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return invalid(loc, 'must be a string or a list of content parts');
  return content.map((part, index): ContentPart => {
    if (!isObject(part)) return invalid([...loc, index], 'must be a content part object');
    if (part.type === 'text' || part.type === 'refusal') {
      const text = part.type === 'text' ? part.text : part.refusal;
      if (typeof text !== 'string') return invalid([...loc, index, 'text'], 'must be a string');
      return isObject(part.cache_control) ? { type: 'text', text, cacheControl: part.cache_control } : { type: 'text', text };
    }
    if (part.type === 'image_url') {
      const image = part.image_url;
      const url = typeof image === 'string' ? image : isObject(image) ? image.url : undefined;
      if (typeof url !== 'string' || url === '') return invalid([...loc, index, 'image_url', 'url'], 'must be an image URL or data URL');
      const detail = isObject(image) && typeof image.detail === 'string' ? image.detail : undefined;
      return { type: 'image', url, ...(detail ? { detail } : {}) };
    }
    throw new AppError('BAD_REQUEST', `Content part type ${String(part.type)} is not supported; use text or image_url`, {
      details: { param: loc.join('.') },
    });
  });
}

function toolCallsOf(value: unknown, loc: (string | number)[]): ToolCall[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return invalid(loc, 'must be a list of tool calls');
  return value.map((call, index): ToolCall => {
    if (!isObject(call) || typeof call.id !== 'string') return invalid([...loc, index, 'id'], 'must be a string');
    if (call.type === 'custom' && isObject(call.custom) && typeof call.custom.name === 'string') {
      return { id: call.id, kind: 'custom', name: call.custom.name, arguments: String(call.custom.input ?? '') };
    }
    const fn = call.function;
    if (!isObject(fn) || typeof fn.name !== 'string') return invalid([...loc, index, 'function', 'name'], 'must be a string');
    return {
      id: call.id,
      kind: 'function',
      name: fn.name,
      arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
    };
  });
}

/** The id of the latest unanswered call of `name` in the last assistant turn (legacy `function` messages name no id). */
function legacyCallId(messages: Message[], name: string, loc: (string | number)[]): string {
  const answered = new Set<string>();
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role === 'tool') answered.add(message.toolCallId);
    if (message.role !== 'assistant') continue;
    const call = message.toolCalls.find((candidate) => candidate.name === name && !answered.has(candidate.id));
    if (call) return call.id;
    break;
  }
  return invalid([...loc, 'name'], `must answer a function_call of the preceding assistant message named ${name}`);
}

/**
 * A message's parts with its message-level cache mark (opencode's `cache_control` on the message) on the last
 * text part, where Anthropic reads a mark; part-level marks stay where they are.
 */
function markedParts(message: Json, loc: (string | number)[]): ContentPart[] {
  const parts = contentParts(message.content, [...loc, 'content']);
  if (!isObject(message.cache_control)) return parts;
  const last = parts.findLastIndex((part) => part.type === 'text');
  if (last >= 0) parts[last] = { ...(parts[last] as Extract<ContentPart, { type: 'text' }>), cacheControl: message.cache_control };
  return parts;
}

interface DecodedMessages {
  system?: string;
  systemCache?: Record<string, unknown>;
  messages: Message[];
}

function decodeMessages(value: unknown): DecodedMessages {
  if (!Array.isArray(value) || value.length === 0) return invalid(['messages'], 'must be a non-empty list of messages');
  const system: string[] = [];
  let systemCache: Record<string, unknown> | undefined;
  const messages: Message[] = [];
  value.forEach((message: unknown, index) => {
    const loc = ['messages', index];
    if (!isObject(message)) return invalid(loc, 'must be a message object');
    switch (message.role) {
      case 'system':
      case 'developer': {
        const parts = markedParts(message, loc);
        // Instructions given once the conversation started stay in place; the leading ones are the system prompt.
        if (messages.length > 0) {
          messages.push({ role: 'system', content: parts });
          return;
        }
        system.push(textOf(parts));
        for (const part of parts) if (part.type === 'text' && part.cacheControl) systemCache = part.cacheControl;
        return;
      }
      case 'user':
        messages.push({ role: 'user', content: markedParts(message, loc) });
        return;
      case 'assistant': {
        const toolCalls = toolCallsOf(message.tool_calls, [...loc, 'tool_calls']);
        // Legacy `function_call`: one call without an id; the `function` message that answers it gets the same id.
        const legacy = message.function_call;
        if (isObject(legacy)) {
          if (typeof legacy.name !== 'string') return invalid([...loc, 'function_call', 'name'], 'must be a string');
          const args = typeof legacy.arguments === 'string' ? legacy.arguments : JSON.stringify(legacy.arguments ?? {});
          toolCalls.push({ id: `call_function_${index}`, kind: 'function', name: legacy.name, arguments: args });
        }
        messages.push({ role: 'assistant', content: markedParts(message, loc), toolCalls });
        return;
      }
      case 'function': {
        if (typeof message.name !== 'string') return invalid([...loc, 'name'], 'must be a string');
        messages.push({
          role: 'tool',
          toolCallId: legacyCallId(messages, message.name, loc),
          content: contentParts(message.content, [...loc, 'content']),
        });
        return;
      }
      case 'tool':
        if (typeof message.tool_call_id !== 'string') return invalid([...loc, 'tool_call_id'], 'must be a string');
        messages.push({ role: 'tool', toolCallId: message.tool_call_id, content: markedParts(message, loc) });
        return;
      default:
        return invalid([...loc, 'role'], 'must be one of system, developer, user, assistant, tool, function');
    }
  });
  return { system: system.length > 0 ? system.join('\n\n') : undefined, ...(systemCache ? { systemCache } : {}), messages };
}

function decodeTools(value: unknown): ToolSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return invalid(['tools'], 'must be a list of tools');
  return value.map((tool: unknown, index): ToolSpec => {
    if (!isObject(tool)) return invalid(['tools', index], 'must be a tool object');
    if (tool.type === 'custom' && isObject(tool.custom) && typeof tool.custom.name === 'string') {
      return {
        type: 'custom',
        name: tool.custom.name,
        description: tool.custom.description as string | undefined,
        format: tool.custom.format,
      };
    }
    const fn = tool.function;
    if (tool.type !== 'function' || !isObject(fn) || typeof fn.name !== 'string')
      return invalid(['tools', index], "must be {type:'function', function:{name, parameters}}");
    return {
      type: 'function',
      name: fn.name,
      description: typeof fn.description === 'string' ? fn.description : undefined,
      parameters: isObject(fn.parameters) ? fn.parameters : undefined,
      ...(typeof fn.strict === 'boolean' ? { strict: fn.strict } : {}),
    };
  });
}

function decodeToolChoice(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  if (isObject(value)) {
    const named = isObject(value.function) ? value.function.name : isObject(value.custom) ? value.custom.name : undefined;
    if (typeof named === 'string') return { name: named };
  }
  return invalid(['tool_choice'], "must be 'auto', 'none', 'required' or {type:'function', function:{name}}");
}

/** Legacy `functions` (function definitions without the `tools` wrapper). */
function legacyFunctions(value: unknown): ToolSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return invalid(['functions'], 'must be a list of functions');
  return decodeTools(value.map((fn) => ({ type: 'function', function: fn })));
}

/** Chat `web_search_options`: the hosted web search tool, with the caller's options (routed by capability). */
function webSearchTool(value: unknown): ToolSpec[] {
  if (value === undefined || value === null) return [];
  if (!isObject(value)) return invalid(['web_search_options'], 'must be an object');
  return [{ type: 'builtin', name: 'web_search', config: { type: 'web_search', ...value } }];
}

/** Legacy `function_call` request parameter: `none`, `auto` or `{name}`. */
function legacyFunctionCall(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'none' || value === 'auto') return value;
  if (isObject(value) && typeof value.name === 'string') return { name: value.name };
  return invalid(['function_call'], "must be 'none', 'auto' or {name}");
}

export interface DecodedChat {
  request: NormalizedRequest;
  includeUsage: boolean;
  store: boolean;
  /** The caller's `messages` as sent (what a stored completion lists). */
  messages: unknown[];
}

export function decodeChatRequest(body: Json): DecodedChat {
  if (typeof body.model !== 'string' || body.model === '') invalid(['model'], 'must be a model id');
  const n = optionalInteger(body, 'n');
  const { system, systemCache, messages } = decodeMessages(body.messages);
  const streamOptions = isObject(body.stream_options) ? body.stream_options : {};
  const functions = legacyFunctions(body.functions);
  const user = typeof body.user === 'string' ? body.user : typeof body.safety_identifier === 'string' ? body.safety_identifier : undefined;
  const request: NormalizedRequest = {
    model: body.model as string,
    system,
    ...(systemCache ? { systemCache } : {}),
    messages,
    tools: [...decodeTools(body.tools), ...functions, ...webSearchTool(body.web_search_options)],
    toolChoice: decodeToolChoice(body.tool_choice) ?? legacyFunctionCall(body.function_call),
    parallelToolCalls: typeof body.parallel_tool_calls === 'boolean' ? body.parallel_tool_calls : undefined,
    maxOutputTokens: optionalInteger(body, 'max_completion_tokens') ?? optionalInteger(body, 'max_tokens'),
    temperature: optionalNumber(body, 'temperature'),
    topP: optionalNumber(body, 'top_p'),
    stop: stopList(body.stop, 'stop'),
    reasoningEffort: reasoningEffort(body.reasoning_effort, ['reasoning_effort']),
    responseFormat: responseFormat(body.response_format, ['response_format']),
    // OpenAI's limits (16 pairs, 64-character keys, 512-character values) hold before the call, not only when storing.
    metadata: body.metadata === undefined || body.metadata === null ? undefined : parseMetadata(body.metadata),
    stream: body.stream === true,
    native: { protocol: 'openai-chat', body },
    source: { protocol: 'chat', body },
    ...(user === undefined ? {} : { endUser: user }),
    ...(functions.length > 0 && body.tools === undefined ? { legacyFunctions: true } : {}),
    // Several choices: only an OpenAI-kind upstream, which takes the body as sent, gives them.
    ...(n !== undefined && n > 1 ? { nativeOnly: [`n=${n}`] } : {}),
  };
  return { request, includeUsage: streamOptions.include_usage === true, store: body.store === true, messages: body.messages as unknown[] };
}
