/** Anthropic Messages body → normalized request. `tool_result` blocks become tool messages before the user's text. */
import { AppError } from '../../../kernel/errors.js';
import type { ContentPart, Message, NormalizedRequest, ReasoningEffort, ToolChoice, ToolSpec } from '../../spec/index.js';
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

function simpleParts(blocks: Json[], loc: (string | number)[]): ContentPart[] {
  return blocks.map((block, index): ContentPart => {
    if (block.type === 'text') return typeof block.text === 'string' ? { type: 'text', text: block.text } : invalid([...loc, index, 'text'], 'must be a string');
    if (block.type === 'image') return imagePart(block, [...loc, index]);
    throw new AppError('BAD_REQUEST', `Content block type ${String(block.type)} is not supported here`, { details: { param: [...loc, index].join('.') } });
  });
}

const DROPPED_ASSISTANT_BLOCKS = new Set(['thinking', 'redacted_thinking', 'server_tool_use', 'web_search_tool_result']);

function decodeMessages(value: unknown): Message[] {
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
          if (typeof block.id !== 'string' || typeof block.name !== 'string') invalid([...loc, 'content', blockIndex], 'tool_use needs id and name');
          turn.toolCalls.push({ id: block.id as string, kind: 'function', name: block.name as string, arguments: JSON.stringify(block.input ?? {}) });
        } else if (!DROPPED_ASSISTANT_BLOCKS.has(String(block.type))) {
          turn.content.push(...simpleParts([block], [...loc, 'content']));
        }
      });
      messages.push(turn);
      return;
    }
    if (message.role !== 'user') return invalid([...loc, 'role'], 'must be user or assistant');
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
        content: simpleParts(blocksOf(block.content ?? '', [...loc, 'content']), [...loc, 'content']),
        ...(block.is_error === true ? { isError: true } : {}),
      });
    }
    if (rest.length > 0 || blocks.length === 0) messages.push({ role: 'user', content: simpleParts(rest, [...loc, 'content']) });
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
    return { type: 'function', name: tool.name, description: typeof tool.description === 'string' ? tool.description : undefined, parameters: isObject(tool.input_schema) ? tool.input_schema : undefined };
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
      return typeof value.name === 'string' ? { choice: { name: value.name }, parallel } : invalid(['tool_choice', 'name'], 'must be a string');
    default:
      return invalid(['tool_choice', 'type'], 'must be auto, any, none or tool');
  }
}

/** Extended thinking's token budget, read as a reasoning effort for destinations that take one. */
function effortOf(thinking: unknown): ReasoningEffort | undefined {
  if (!isObject(thinking) || thinking.type !== 'enabled' || typeof thinking.budget_tokens !== 'number') return undefined;
  return thinking.budget_tokens < 4_096 ? 'low' : thinking.budget_tokens < 16_384 ? 'medium' : 'high';
}

export function decodeMessagesRequest(body: Json, options: { requireMaxTokens: boolean } = { requireMaxTokens: true }): NormalizedRequest {
  if (typeof body.model !== 'string' || body.model === '') invalid(['model'], 'must be a model id');
  const maxTokens = optionalInteger(body, 'max_tokens');
  if (options.requireMaxTokens && maxTokens === undefined) invalid(['max_tokens'], 'is required');
  const tools = decodeTools(body.tools);
  const { choice, parallel } = decodeToolChoice(body.tool_choice);
  const metadata = isObject(body.metadata) && typeof body.metadata.user_id === 'string' ? { user_id: body.metadata.user_id } : undefined;
  return {
    model: body.model as string,
    system: decodeSystem(body.system),
    messages: decodeMessages(body.messages),
    tools,
    toolChoice: choice,
    parallelToolCalls: parallel,
    maxOutputTokens: maxTokens,
    temperature: optionalNumber(body, 'temperature'),
    topP: optionalNumber(body, 'top_p'),
    stop: stopList(body.stop_sequences, 'stop_sequences'),
    reasoningEffort: effortOf(body.thinking),
    metadata,
    stream: body.stream === true,
  };
}
