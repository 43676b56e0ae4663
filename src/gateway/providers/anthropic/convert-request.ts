/** Normalized request → Anthropic Messages body. Tool results travel as `tool_result` blocks in a user turn. */
import { AppError } from '../../../kernel/errors.js';
import {
  textOf,
  type ContentPart,
  type NormalizedRequest,
  type ReasoningEffort,
  type ToolChoice,
  type ToolSpec,
} from '../../normalized/index.js';
import { CUSTOM_INPUT_SCHEMA, customToolDescription } from '../shared/custom-tools.js';
import { parseDataUrl } from '../shared/image-url.js';
import { STRUCTURED_OUTPUT_DESCRIPTION, STRUCTURED_OUTPUT_TOOL } from '../shared/structured-tool.js';
import type { AnthropicBlock, AnthropicMessage, AnthropicRequestBody, AnthropicTool } from './wire-types.js';

const EMPTY_SCHEMA = { type: 'object', properties: {} };

function blocksOf(parts: ContentPart[]): AnthropicBlock[] {
  return parts.map((part): AnthropicBlock => {
    if (part.type === 'text')
      return part.cacheControl ? { type: 'text', text: part.text, cache_control: part.cacheControl } : { type: 'text', text: part.text };
    const data = parseDataUrl(part.url);
    return {
      type: 'image',
      source: data ? { type: 'base64', media_type: data.mediaType, data: data.data } : { type: 'url', url: part.url },
    };
  });
}

/** A tool result's content: plain text, or text and image blocks when the tool returned images (never dropped). */
function toolResultContent(parts: ContentPart[]): string | AnthropicBlock[] {
  return parts.some((part) => part.type === 'image') ? blocksOf(parts) : textOf(parts);
}

function parseArguments(json: string): unknown {
  try {
    return json.trim() === '' ? {} : JSON.parse(json);
  } catch {
    throw new AppError('BAD_REQUEST', 'A tool call in the history has arguments that are not valid JSON', {
      details: { param: 'messages' },
    });
  }
}

function convertMessages(request: NormalizedRequest): AnthropicMessage[] {
  const messages: AnthropicMessage[] = [];
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      const content: AnthropicBlock[] = blocksOf(message.content).filter((block) => block.type !== 'text' || block.text !== '');
      for (const call of message.toolCalls) {
        content.push({
          type: 'tool_use',
          id: call.id,
          name: call.name,
          input: call.kind === 'custom' ? { input: call.arguments } : parseArguments(call.arguments),
        });
      }
      messages.push({ role: 'assistant', content });
      continue;
    }
    const blocks: AnthropicBlock[] =
      message.role === 'tool'
        ? [
            {
              type: 'tool_result',
              tool_use_id: message.toolCallId,
              content: toolResultContent(message.content),
              ...(message.isError ? { is_error: true } : {}),
            },
          ]
        : message.role === 'system'
          ? systemReminder(message.content)
          : blocksOf(message.content);
    const previous = messages[messages.length - 1];
    // Tool results answer the preceding assistant turn and must share one user turn with what follows them; an
    // instruction given mid-conversation joins the user turn it stands next to.
    const joins =
      previous?.role === 'user' &&
      (message.role === 'system' || previous.content.some((block) => block.type === 'tool_result' || isReminder(block)));
    if (previous && joins) previous.content.push(...blocks);
    else messages.push({ role: 'user', content: blocks });
  }
  return messages;
}

/**
 * A mid-conversation instruction (a chat `system` message after the first turn) stays where it was given, as
 * user-side text marked as a system reminder: a translated request carries no beta header for Anthropic's
 * mid-conversation system messages, and a system prompt moved to the top would change its meaning.
 */
function systemReminder(parts: ContentPart[]): AnthropicBlock[] {
  const last = parts.findLast((part) => part.type === 'text');
  const mark = last?.type === 'text' ? last.cacheControl : undefined;
  const text = `<system-reminder>\n${textOf(parts)}\n</system-reminder>`;
  return [mark ? { type: 'text', text, cache_control: mark } : { type: 'text', text }];
}

function isReminder(block: AnthropicBlock): boolean {
  return block.type === 'text' && block.text.startsWith('<system-reminder>');
}

function convertTool(tool: ToolSpec): AnthropicTool {
  if (tool.type === 'function') return { name: tool.name, description: tool.description, input_schema: tool.parameters ?? EMPTY_SCHEMA };
  if (tool.type === 'custom') return { name: tool.name, description: customToolDescription(tool), input_schema: CUSTOM_INPUT_SCHEMA };
  const versionedType = tool.config.type;
  // Anthropic's own server tools (`web_search_20250305`, `bash_20250124`) pass through as the caller wrote them.
  if (typeof versionedType === 'string' && /_\d{8}$/.test(versionedType)) return tool.config as AnthropicTool;
  if (tool.name === 'web_search') {
    const maxUses = tool.config.max_uses;
    return { type: 'web_search_20250305', name: 'web_search', ...(typeof maxUses === 'number' ? { max_uses: maxUses } : {}) };
  }
  throw new AppError('BAD_REQUEST', `The tool type ${tool.name} is not available on this model's destination`, {
    details: { param: 'tools' },
  });
}

function convertToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): AnthropicRequestBody['tool_choice'] {
  const disable = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallel === false ? { type: 'auto', ...disable } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto', ...disable };
  if (choice === 'required') return { type: 'any', ...disable };
  return { type: 'tool', name: choice.name, ...disable };
}

/** Thinking token budgets for OpenAI reasoning efforts (Anthropic's minimum budget is 1,024). */
const THINKING_BUDGET: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1_024,
  low: 2_048,
  medium: 8_192,
  high: 16_384,
  xhigh: 32_000,
};
/** Anthropic's `output_config.effort` values for OpenAI reasoning efforts. */
const ANTHROPIC_EFFORT: Record<Exclude<ReasoningEffort, 'none'>, string> = {
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'max',
};

export interface AnthropicConvertOptions {
  upstreamModel: string;
  defaultMaxTokens: number;
  /** The model takes `output_config.format` (else structured output goes through a forced tool). */
  nativeStructuredOutput?: boolean;
  /** The model takes adaptive thinking with `output_config.effort` (else a thinking token budget). */
  adaptiveThinking?: boolean;
}

function structuredOutput(request: NormalizedRequest, body: AnthropicRequestBody, native: boolean): boolean {
  const format = request.responseFormat;
  if (format === undefined) return false;
  const schema = format.type === 'json_schema' ? format.schema : { type: 'object', additionalProperties: true };
  if (native) {
    body.output_config = { ...body.output_config, format: { type: 'json_schema', schema } };
    return false;
  }
  // Emulated: one tool whose arguments come back as the answer's text (see the adapter). Forced when the caller
  // has no tools; beside the caller's own tools it is offered, and the caller's tools stay callable.
  const description = format.type === 'json_schema' && format.description ? format.description : STRUCTURED_OUTPUT_DESCRIPTION;
  const callerTools = (body.tools ?? []).length > 0;
  body.tools = [...(body.tools ?? []), { name: STRUCTURED_OUTPUT_TOOL, description, input_schema: schema }];
  if (callerTools) return false;
  body.tool_choice = { type: 'tool', name: STRUCTURED_OUTPUT_TOOL };
  return true;
}

/** OpenAI reasoning effort → adaptive thinking and effort, or a thinking budget below max_tokens. */
function thinking(request: NormalizedRequest, body: AnthropicRequestBody, adaptive: boolean): void {
  const effort = request.reasoningEffort;
  if (effort === undefined || effort === 'none') return;
  if (adaptive) {
    body.thinking = { type: 'adaptive' };
    body.output_config = { ...body.output_config, effort: ANTHROPIC_EFFORT[effort] };
  } else {
    const budget = Math.min(THINKING_BUDGET[effort], body.max_tokens - 1);
    if (budget < 1_024) return;
    body.thinking = { type: 'enabled', budget_tokens: budget };
  }
  // Anthropic refuses a temperature or top_p other than its own while thinking.
  delete body.temperature;
  delete body.top_p;
}

export function toAnthropicRequest(request: NormalizedRequest, options: AnthropicConvertOptions): AnthropicRequestBody {
  const body: AnthropicRequestBody = {
    model: options.upstreamModel,
    max_tokens: request.maxOutputTokens ?? options.defaultMaxTokens,
    messages: convertMessages(request),
    stream: request.stream,
  };
  if (request.system !== undefined && request.system !== '')
    body.system = request.systemCache ? [{ type: 'text', text: request.system, cache_control: request.systemCache }] : request.system;
  if (request.endUser !== undefined) body.metadata = { user_id: request.endUser };
  if (request.tools.length > 0) {
    body.tools = request.tools.map(convertTool);
    const choice = convertToolChoice(request.toolChoice, request.parallelToolCalls);
    if (choice) body.tool_choice = choice;
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) body.stop_sequences = request.stop;
  const forced = structuredOutput(request, body, options.nativeStructuredOutput ?? false);
  // A forced tool choice and thinking do not go together on Anthropic; the shape of the answer wins.
  if (!forced) thinking(request, body, options.adaptiveThinking ?? false);
  return body;
}
