/**
 * OpenAI Responses create body → normalized request. The original body rides along in `native`, so a destination
 * that speaks Responses receives it unchanged apart from `model` (and an "aborted" output for any tool call that
 * has none, see repair.ts).
 */
import type { ContentPart, Message, NormalizedRequest, ToolChoice, ToolSpec } from '../../normalized/index.js';
import {
  invalid,
  isObject,
  optionalInteger,
  optionalNumber,
  reasoningEffort,
  responseFormat,
  type Json,
} from '../shared/decode-helpers.js';
import { parseMetadata } from '../../stored/metadata.js';
import { withAbortedToolOutputs } from './repair.js';

function partsOf(content: unknown, loc: (string | number)[], nativeOnly: string[]): ContentPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return invalid(loc, 'must be a string or a list of content parts');
  const parts: ContentPart[] = [];
  content.forEach((part: unknown, index) => {
    if (!isObject(part)) return invalid([...loc, index], 'must be a content part object');
    switch (part.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
      case 'summary_text':
        if (typeof part.text !== 'string') return invalid([...loc, index, 'text'], 'must be a string');
        parts.push({ type: 'text', text: part.text });
        return;
      case 'refusal':
        parts.push({ type: 'text', text: String(part.refusal ?? '') });
        return;
      case 'input_image': {
        const url = typeof part.image_url === 'string' ? part.image_url : undefined;
        // A file_id image still counts as an image for the capability check.
        parts.push({ type: 'image', url: url ?? '', ...(typeof part.detail === 'string' ? { detail: part.detail } : {}) });
        if (!url) nativeOnly.push(`an input_image by file_id at ${loc.join('.')}`);
        return;
      }
      default:
        nativeOnly.push(`content part type ${String(part.type)} at ${loc.join('.')}`);
    }
  });
  return parts;
}

function outputText(output: unknown, nativeOnly: string[]): ContentPart[] {
  if (typeof output === 'string') return [{ type: 'text', text: output }];
  return partsOf(output, ['input', 'output'], nativeOnly);
}

/** Appends a message, merging tool calls into the assistant turn they belong to. */
function assistantTurn(messages: Message[]): Extract<Message, { role: 'assistant' }> {
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant') return last;
  const turn: Extract<Message, { role: 'assistant' }> = { role: 'assistant', content: [], toolCalls: [] };
  messages.push(turn);
  return turn;
}

function decodeInput(input: unknown, system: string[], nativeOnly: string[]): Message[] {
  if (typeof input === 'string') return [{ role: 'user', content: [{ type: 'text', text: input }] }];
  if (!Array.isArray(input)) return invalid(['input'], 'must be a string or a list of input items');
  const messages: Message[] = [];
  input.forEach((item: unknown, index) => {
    const loc = ['input', index];
    if (!isObject(item)) return invalid(loc, 'must be an input item object');
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    switch (type) {
      case 'message': {
        const content = partsOf(item.content, [...loc, 'content'], nativeOnly);
        if (item.role === 'system' || item.role === 'developer') {
          system.push(content.map((part) => (part.type === 'text' ? part.text : '')).join(''));
        } else if (item.role === 'assistant') {
          assistantTurn(messages).content.push(...content);
        } else if (item.role === 'user') {
          messages.push({ role: 'user', content });
        } else {
          invalid([...loc, 'role'], 'must be one of user, assistant, system, developer');
        }
        return;
      }
      case 'function_call':
      case 'custom_tool_call': {
        const callId = item.call_id;
        if (typeof callId !== 'string' || typeof item.name !== 'string') return invalid(loc, 'a tool call needs call_id and name');
        const custom = type === 'custom_tool_call';
        assistantTurn(messages).toolCalls.push({
          id: callId,
          kind: custom ? 'custom' : 'function',
          name: item.name,
          arguments: String((custom ? item.input : item.arguments) ?? ''),
        });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
        if (typeof item.call_id !== 'string') return invalid([...loc, 'call_id'], 'must be a string');
        messages.push({ role: 'tool', toolCallId: item.call_id, content: outputText(item.output, nativeOnly) });
        return;
      // Reasoning, web search and compaction items are the upstream's own state; only a native destination reads them.
      case 'reasoning':
      case 'web_search_call':
      case 'compaction':
      case 'item_reference':
        return;
      default:
        nativeOnly.push(`input item type ${String(type)} at input.${index}`);
    }
  });
  return messages;
}

function decodeTool(tool: unknown, index: number, into: ToolSpec[]): void {
  if (!isObject(tool)) return invalid(['tools', index], 'must be a tool object');
  const description = typeof tool.description === 'string' ? tool.description : undefined;
  if (tool.type === 'function') {
    if (typeof tool.name !== 'string') return invalid(['tools', index, 'name'], 'must be a string');
    into.push({
      type: 'function',
      name: tool.name,
      description,
      parameters: isObject(tool.parameters) ? tool.parameters : undefined,
      ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
    });
  } else if (tool.type === 'custom') {
    if (typeof tool.name !== 'string') return invalid(['tools', index, 'name'], 'must be a string');
    into.push({ type: 'custom', name: tool.name, description, format: tool.format });
  } else if (tool.type === 'namespace' && Array.isArray(tool.tools)) {
    // A namespace groups client-run tools; destinations without namespaces get its tools flat.
    tool.tools.forEach((inner: unknown) => decodeTool(inner, index, into));
  } else if (tool.type === 'web_search' || tool.type === 'web_search_preview') {
    into.push({ type: 'builtin', name: 'web_search', config: tool });
  } else if (tool.execution === 'client' && isObject(tool.parameters)) {
    // A client-run tool of another type (Codex's tool_search) is, to a plain upstream, a function.
    into.push({
      type: 'function',
      name: typeof tool.name === 'string' ? tool.name : String(tool.type),
      description,
      parameters: tool.parameters,
    });
  } else if (typeof tool.type === 'string') {
    into.push({ type: 'builtin', name: tool.type, config: tool });
  } else {
    invalid(['tools', index, 'type'], 'must be a string');
  }
}

function decodeToolChoice(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  if (isObject(value) && typeof value.name === 'string') return { name: value.name };
  if (isObject(value)) return 'auto';
  return invalid(['tool_choice'], "must be 'auto', 'none', 'required' or {type, name}");
}

/** The caller's `input` as a list of items (what `input_items` lists). */
export function inputItemsOf(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  return Array.isArray(input) ? input : [];
}

export function decodeResponsesRequest(given: Json): NormalizedRequest {
  if (typeof given.model !== 'string' || given.model === '') invalid(['model'], 'must be a model id');
  if (given.input === undefined || given.input === null) invalid(['input'], 'is required');
  // A call left without its output (a crash mid-command) is answered "aborted", for every destination alike.
  const input = Array.isArray(given.input) ? withAbortedToolOutputs(given.input) : given.input;
  const body = input === given.input ? given : { ...given, input };
  const system: string[] = [];
  const nativeOnly: string[] = [];
  if (typeof body.instructions === 'string' && body.instructions !== '') system.push(body.instructions);
  const messages = decodeInput(body.input, system, nativeOnly);
  const tools: ToolSpec[] = [];
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) invalid(['tools'], 'must be a list of tools');
    (body.tools as unknown[]).forEach((tool, index) => decodeTool(tool, index, tools));
  }
  const reasoning = isObject(body.reasoning) ? body.reasoning : {};
  return {
    model: body.model as string,
    system: system.length > 0 ? system.join('\n\n') : undefined,
    messages,
    tools,
    toolChoice: decodeToolChoice(body.tool_choice),
    parallelToolCalls: typeof body.parallel_tool_calls === 'boolean' ? body.parallel_tool_calls : undefined,
    maxOutputTokens: optionalInteger(body, 'max_output_tokens'),
    temperature: optionalNumber(body, 'temperature'),
    topP: optionalNumber(body, 'top_p'),
    reasoningEffort: reasoningEffort(reasoning.effort, ['reasoning', 'effort']),
    responseFormat: responseFormat(isObject(body.text) ? body.text.format : undefined, ['text', 'format']),
    // OpenAI's limits (16 pairs, 64-character keys, 512-character values) hold before the call, not only when storing.
    metadata: body.metadata === undefined || body.metadata === null ? undefined : parseMetadata(body.metadata),
    stream: body.stream === true,
    native: { protocol: 'openai-responses', body },
    source: { protocol: 'responses', body },
    ...endUserOf(body),
    openaiHints: hintsOf(body),
    ...(nativeOnly.length > 0 ? { nativeOnly } : {}),
  };
}

const stringOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function endUserOf(body: Json): { endUser?: string } {
  const user = stringOf(body.user) ?? stringOf(body.safety_identifier);
  return user === undefined ? {} : { endUser: user };
}

/** What a translation to chat carries over as chat's own fields (see normalized/field-fates.ts). */
function hintsOf(body: Json): NormalizedRequest['openaiHints'] {
  const text = isObject(body.text) ? body.text : {};
  return {
    promptCacheKey: stringOf(body.prompt_cache_key),
    verbosity: stringOf(text.verbosity),
    serviceTier: stringOf(body.service_tier),
    topLogprobs: typeof body.top_logprobs === 'number' ? body.top_logprobs : undefined,
    user: stringOf(body.user),
    safetyIdentifier: stringOf(body.safety_identifier),
  };
}

export interface DecodedResponses {
  request: NormalizedRequest;
  /** The caller's body (echoed in the response, sent natively, stored with its input items). */
  body: Json;
}

export function decodeResponses(body: Json): DecodedResponses {
  return { request: decodeResponsesRequest(body), body };
}
