/** Anthropic Messages body → normalized request. `tool_result` blocks become tool messages before the user's text. */
import { AppError } from '../../../kernel/errors.js';
import type { ContentPart, Message, NormalizedRequest, ReasoningEffort, ToolChoice, ToolSpec } from '../../normalized/index.js';
import { invalid, isObject, optionalInteger, optionalNumber, stopList, type Json } from '../shared/decode-helpers.js';

function imagePart(block: Json, loc: (string | number)[]): ContentPart {
  const source = block.source;
  if (isObject(source) && source.type === 'base64' && typeof source.media_type === 'string' && typeof source.data === 'string') {
    return { type: 'image', url: `data:${source.media_type};base64,${source.data}` };
  }
  if (isObject(source) && source.type === 'url' && typeof source.url === 'string') return { type: 'image', url: source.url };
  return invalid([...loc, 'source'], 'must be {type:"base64", media_type, data} or {type:"url", url}');
}

function blocksOf(content: unknown, loc: (string | number)[]): Json[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return invalid(loc, 'must be a string or a list of content blocks');
  return content.map((block, index) => (isObject(block) ? block : invalid([...loc, index], 'must be a content block object')));
}

/**
 * Text and image blocks. Any other block (document, search_result, …) only an Anthropic-kind destination reads:
 * it is listed in `nativeOnly` (the call is refused elsewhere, never trimmed) and left out of the normalized form.
 */
function simpleParts(blocks: Json[], loc: (string | number)[], nativeOnly: string[]): ContentPart[] {
  const parts: ContentPart[] = [];
  blocks.forEach((block, index) => {
    if (block.type === 'text')
      parts.push(
        typeof block.text === 'string' ? { type: 'text', text: block.text } : invalid([...loc, index, 'text'], 'must be a string'),
      );
    else if (block.type === 'image') parts.push(imagePart(block, [...loc, index]));
    else nativeOnly.push(`content block type ${String(block.type)} at ${[...loc, index].join('.')}`);
  });
  return parts;
}

const DROPPED_ASSISTANT_BLOCKS = new Set(['thinking', 'redacted_thinking', 'server_tool_use', 'web_search_tool_result']);

function decodeMessages(value: unknown, nativeOnly: string[]): Message[] {
  if (!Array.isArray(value) || value.length === 0) return invalid(['messages'], 'must be a non-empty list of messages');
  const messages: Message[] = [];
  value.forEach((message: unknown, index) => {
    const loc = ['messages', index];
    if (!isObject(message)) return invalid(loc, 'must be a message object');
    const blocks = blocksOf(message.content, [...loc, 'content']);
    if (message.role === 'assistant') {
      const turn: Extract<Message, { role: 'assistant' }> = { role: 'assistant', content: [], toolCalls: [] };
      blocks.forEach((block, blockIndex) => {
        if (block.type === 'tool_use') {
          if (typeof block.id !== 'string' || typeof block.name !== 'string')
            invalid([...loc, 'content', blockIndex], 'tool_use needs id and name');
          turn.toolCalls.push({
            id: block.id as string,
            kind: 'function',
            name: block.name as string,
            arguments: JSON.stringify(block.input ?? {}),
          });
        } else if (!DROPPED_ASSISTANT_BLOCKS.has(String(block.type))) {
          turn.content.push(...simpleParts([block], [...loc, 'content', blockIndex], nativeOnly));
        }
      });
      messages.push(turn);
      return;
    }
    if (message.role === 'system') {
      // A mid-conversation instruction (Claude Code's mid-conversation-system beta), kept in place.
      messages.push({ role: 'system', content: simpleParts(blocks, [...loc, 'content'], nativeOnly) });
      return;
    }
    if (message.role !== 'user') return invalid([...loc, 'role'], 'must be user, assistant or system');
    const rest: Json[] = [];
    for (const block of blocks) {
      if (block.type !== 'tool_result') {
        rest.push(block);
        continue;
      }
      if (typeof block.tool_use_id !== 'string') invalid([...loc, 'content'], 'tool_result needs tool_use_id');
      messages.push({
        role: 'tool',
        toolCallId: block.tool_use_id as string,
        content: simpleParts(blocksOf(block.content ?? '', [...loc, 'content']), [...loc, 'content'], nativeOnly),
        ...(block.is_error === true ? { isError: true } : {}),
      });
    }
    if (rest.length > 0 || blocks.length === 0)
      messages.push({ role: 'user', content: simpleParts(rest, [...loc, 'content'], nativeOnly) });
  });
  return messages;
}

function decodeSystem(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((block) => (isObject(block) && typeof block.text === 'string' ? block.text : '')).join('\n');
  return invalid(['system'], 'must be a string or a list of text blocks');
}

function decodeTools(value: unknown): ToolSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return invalid(['tools'], 'must be a list of tools');
  return value.map((tool: unknown, index): ToolSpec => {
    if (!isObject(tool) || typeof tool.name !== 'string') return invalid(['tools', index, 'name'], 'must be a string');
    // Server tools carry a versioned `type` (web_search_20250305); client tools carry an input_schema.
    if (typeof tool.type === 'string' && tool.type !== 'custom') {
      return { type: 'builtin', name: tool.type.startsWith('web_search') ? 'web_search' : tool.type, config: tool };
    }
    return {
      type: 'function',
      name: tool.name,
      description: typeof tool.description === 'string' ? tool.description : undefined,
      parameters: isObject(tool.input_schema) ? tool.input_schema : undefined,
    };
  });
}

function decodeToolChoice(value: unknown): { choice?: ToolChoice; parallel?: boolean } {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) return invalid(['tool_choice'], 'must be an object');
  const parallel = value.disable_parallel_tool_use === true ? false : undefined;
  switch (value.type) {
    case 'auto':
      return { choice: 'auto', parallel };
    case 'any':
      return { choice: 'required', parallel };
    case 'none':
      return { choice: 'none' };
    case 'tool':
      return typeof value.name === 'string'
        ? { choice: { name: value.name }, parallel }
        : invalid(['tool_choice', 'name'], 'must be a string');
    default:
      return invalid(['tool_choice', 'type'], 'must be auto, any, none or tool');
  }
}

const EFFORTS: ReadonlySet<string> = new Set(['low', 'medium', 'high', 'xhigh', 'max']);

/**
 * The reasoning effort for destinations that take one: `output_config.effort` when given, else extended thinking's
 * token budget, else `medium` for adaptive thinking. Thinking `disabled` reads as `none` only when asked for.
 */
export function effortOf(thinking: unknown, outputConfig: unknown): ReasoningEffort | undefined {
  const effort = isObject(outputConfig) ? outputConfig.effort : undefined;
  if (typeof effort === 'string' && EFFORTS.has(effort)) return effort === 'max' ? 'xhigh' : (effort as ReasoningEffort);
  if (!isObject(thinking)) return undefined;
  if (thinking.type === 'adaptive') return 'medium';
  if (thinking.type !== 'enabled' || typeof thinking.budget_tokens !== 'number') return undefined;
  return thinking.budget_tokens < 4_096 ? 'low' : thinking.budget_tokens < 16_384 ? 'medium' : 'high';
}

export type RequestHeaders = Record<string, string | string[] | undefined>;

/** The Messages API version a caller speaks when it names none. */
export const DEFAULT_MESSAGES_VERSION = '2023-06-01';

/**
 * The version the caller speaks (`messages-api-version`, else `anthropic-version`); only the 2023-06-01 wire
 * exists, so anything that is not a date is refused clearly.
 */
export function checkMessagesVersion(headers: RequestHeaders): void {
  const version = (headers['messages-api-version'] ?? headers['anthropic-version'] ?? DEFAULT_MESSAGES_VERSION) as string;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(version)) {
    throw new AppError('BAD_REQUEST', `Unsupported messages API version ${version}; use ${DEFAULT_MESSAGES_VERSION}`, { details: {} });
  }
}

/**
 * `headers` are the caller's request headers (the version check runs on them first): the `anthropic-beta` list travels with the native body to an
 * Anthropic-kind destination, which gets the body as sent (model rewritten).
 */
export function decodeMessagesRequest(
  body: Json,
  options: { requireMaxTokens: boolean; headers?: RequestHeaders } = { requireMaxTokens: true },
): NormalizedRequest {
  if (options.headers) checkMessagesVersion(options.headers);
  const nativeOnly: string[] = [];
  if (typeof body.model !== 'string' || body.model === '') invalid(['model'], 'must be a model id');
  const maxTokens = optionalInteger(body, 'max_tokens');
  if (options.requireMaxTokens && maxTokens === undefined) invalid(['max_tokens'], 'is required');
  const tools = decodeTools(body.tools);
  const { choice, parallel } = decodeToolChoice(body.tool_choice);
  const metadata = isObject(body.metadata) && typeof body.metadata.user_id === 'string' ? { user_id: body.metadata.user_id } : undefined;
  return {
    model: body.model as string,
    system: decodeSystem(body.system),
    messages: decodeMessages(body.messages, nativeOnly),
    tools,
    toolChoice: choice,
    parallelToolCalls: parallel,
    maxOutputTokens: maxTokens,
    temperature: optionalNumber(body, 'temperature'),
    topP: optionalNumber(body, 'top_p'),
    stop: stopList(body.stop_sequences, 'stop_sequences'),
    reasoningEffort: effortOf(body.thinking, body.output_config),
    responseFormat: responseFormatOf(body.output_config),
    metadata,
    stream: body.stream === true,
    native: { protocol: 'anthropic-messages', body, headers: forwardedHeaders(options.headers) },
    source: { protocol: 'messages', body },
    ...(metadata ? { endUser: metadata.user_id } : {}),
    ...(nativeOnly.length > 0 ? { nativeOnly } : {}),
  };
}

/** Anthropic `output_config.format` (`{type: "json_schema", schema}`) as the normalized structured output. */
function responseFormatOf(outputConfig: unknown): NormalizedRequest['responseFormat'] {
  const format = isObject(outputConfig) ? outputConfig.format : undefined;
  if (!isObject(format) || format.type !== 'json_schema' || !isObject(format.schema)) return undefined;
  return { type: 'json_schema', name: typeof format.name === 'string' ? format.name : 'output', schema: format.schema };
}

/** The caller's headers an Anthropic-kind destination must see, as sent: the API version and the beta feature list. */
function forwardedHeaders(headers: RequestHeaders | undefined): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const name of ['anthropic-version', 'anthropic-beta']) {
    const value = headers?.[name];
    if (value !== undefined) forwarded[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return forwarded;
}
