/** Normalized request → OpenAI chat completions body. Custom tools become one-string-parameter functions. */
import { AppError } from '../../../kernel/errors.js';
import { textOf, type ContentPart, type Message, type NormalizedRequest, type ToolChoice, type ToolSpec } from '../../normalized/index.js';
import { CUSTOM_INPUT_SCHEMA, customToolDescription } from '../shared/custom-tools.js';
import { STRUCTURED_OUTPUT_DESCRIPTION, STRUCTURED_OUTPUT_TOOL } from '../shared/structured-tool.js';
import type { ChatContentPart, ChatMessage, ChatRequestBody } from './wire-types.js';

function userContent(parts: ContentPart[]): string | ChatContentPart[] {
  if (parts.every((part) => part.type === 'text')) return textOf(parts);
  return parts.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image_url', image_url: { url: part.url, ...(part.detail ? { detail: part.detail } : {}) } },
  );
}

function convertMessage(message: Message): ChatMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: userContent(message.content) };
    case 'assistant': {
      const text = textOf(message.content);
      return {
        role: 'assistant',
        content: text === '' && message.toolCalls.length > 0 ? null : text,
        ...(message.toolCalls.length > 0
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: {
                  name: call.name,
                  arguments: call.kind === 'custom' ? JSON.stringify({ input: call.arguments }) : call.arguments,
                },
              })),
            }
          : {}),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: textOf(message.content) };
    case 'system':
      // A mid-conversation instruction stays where it was given.
      return { role: 'system', content: textOf(message.content) };
  }
}

/**
 * Chat tool messages carry text only. Images a tool returned go in one user message after the run of tool
 * messages (a message between an assistant's tool calls and their results would be refused), never dropped.
 */
function convertHistory(history: Message[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let toolImages: ChatContentPart[] = [];
  for (const [index, message] of history.entries()) {
    messages.push(convertMessage(message));
    if (message.role === 'tool') {
      const images = message.content.filter((part) => part.type === 'image');
      if (images.length > 0)
        toolImages.push(
          { type: 'text', text: `Images returned by tool call ${message.toolCallId}:` },
          ...(userContent(images) as ChatContentPart[]),
        );
    }
    if (toolImages.length > 0 && history[index + 1]?.role !== 'tool') {
      messages.push({ role: 'user', content: toolImages });
      toolImages = [];
    }
  }
  return messages;
}

function convertTools(tools: ToolSpec[], body: ChatRequestBody): void {
  const functions: NonNullable<ChatRequestBody['tools']> = [];
  for (const tool of tools) {
    if (tool.type === 'function') {
      functions.push({
        type: 'function',
        function: {
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters,
          ...(tool.strict === undefined ? {} : { strict: tool.strict }),
        },
      });
    } else if (tool.type === 'custom') {
      functions.push({
        type: 'function',
        function: { name: tool.name, description: customToolDescription(tool), parameters: CUSTOM_INPUT_SCHEMA },
      });
    } else if (tool.name === 'web_search') {
      body.web_search_options = {};
    } else {
      throw new AppError('BAD_REQUEST', `The tool type ${tool.name} is not available on this model's destination`, {
        details: { param: 'tools' },
      });
    }
  }
  if (functions.length > 0) body.tools = functions;
}

function convertToolChoice(choice: ToolChoice): ChatRequestBody['tool_choice'] {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/** OpenAI fields a Responses caller gave that chat has too, and the end-user id of any caller. */
function hints(request: NormalizedRequest, body: ChatRequestBody): void {
  const given = request.openaiHints ?? {};
  if (given.promptCacheKey !== undefined) body.prompt_cache_key = given.promptCacheKey;
  if (given.verbosity !== undefined) body.verbosity = given.verbosity;
  if (given.serviceTier !== undefined) body.service_tier = given.serviceTier;
  if (given.topLogprobs !== undefined) {
    body.logprobs = true;
    body.top_logprobs = given.topLogprobs;
  }
  if (given.safetyIdentifier !== undefined) body.safety_identifier = given.safetyIdentifier;
  if (given.user !== undefined) body.user = given.user;
  else if (given.safetyIdentifier === undefined && request.endUser !== undefined) body.user = request.endUser;
}

/** `nativeStructuredOutput: false`: structured output goes through a forced function (see shared/structured-tool). */
export function toChatRequest(
  request: NormalizedRequest,
  upstreamModel: string,
  options: { nativeStructuredOutput?: boolean } = {},
): ChatRequestBody {
  const messages: ChatMessage[] = [];
  if (request.system !== undefined && request.system !== '') messages.push({ role: 'system', content: request.system });
  messages.push(...convertHistory(request.messages));
  const body: ChatRequestBody = { model: upstreamModel, messages, stream: request.stream };
  if (request.stream) body.stream_options = { include_usage: true };
  convertTools(request.tools, body);
  if (request.toolChoice !== undefined && body.tools) body.tool_choice = convertToolChoice(request.toolChoice);
  if (request.parallelToolCalls !== undefined && body.tools) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.maxOutputTokens !== undefined) body.max_completion_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) body.stop = request.stop;
  if (request.reasoningEffort !== undefined) body.reasoning_effort = request.reasoningEffort;
  hints(request, body);
  const format = request.responseFormat;
  if (format !== undefined && options.nativeStructuredOutput === false) {
    const parameters = format.type === 'json_schema' ? format.schema : { type: 'object', additionalProperties: true };
    const description = format.type === 'json_schema' && format.description ? format.description : STRUCTURED_OUTPUT_DESCRIPTION;
    body.tools = [...(body.tools ?? []), { type: 'function', function: { name: STRUCTURED_OUTPUT_TOOL, description, parameters } }];
    body.tool_choice = { type: 'function', function: { name: STRUCTURED_OUTPUT_TOOL } };
    return body;
  }
  if (format?.type === 'json_object') body.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    const { type, ...jsonSchema } = format;
    body.response_format = { type, json_schema: jsonSchema };
  }
  return body;
}
