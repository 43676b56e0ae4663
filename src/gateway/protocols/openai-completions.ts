/**
 * Legacy text completions (`POST /v1/completions`), adapted onto the same normalized call the Responses route
 * makes: each prompt becomes one user input, the model's text comes back in the legacy `text_completion` shape
 * (`choices[].text`, `finish_reason`, `usage`), streamed as legacy chunks ending with `[DONE]`.
 * A list of prompts is a batch: one call per prompt, one choice per prompt (`index` = the prompt's position).
 */
import { AppError, validationError } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { FinishReason, NormalizedRequest, Usage } from '../normalized/index.js';
import { countTextTokens } from '../tokens.js';
import { type JsonObject } from '../../kernel/json.js';

export const COMPLETION_PROMPTS_MAX = 16;

export interface CompletionsRequest {
  prompts: string[];
  /** The normalized request of one prompt (the prompt itself is filled in per call). */
  template: Omit<NormalizedRequest, 'messages'>;
  echo: boolean;
  includeUsage: boolean;
}

function fail(field: string, message: string): never {
  throw validationError([{ loc: ['body', field], msg: message, type: 'value_error' }]);
}

function optionalNumber(body: JsonObject, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(field, `${field} must be a number`);
  return value;
}

function promptsOf(prompt: unknown): string[] {
  if (typeof prompt === 'string') return [prompt];
  if (Array.isArray(prompt) && prompt.length > 0 && prompt.every((entry) => typeof entry === 'string')) {
    if (prompt.length > COMPLETION_PROMPTS_MAX) fail('prompt', `at most ${COMPLETION_PROMPTS_MAX} prompts per request`);
    return prompt as string[];
  }
  if (Array.isArray(prompt) && prompt.length > 0 && prompt.every((entry) => typeof entry === 'number' || Array.isArray(entry))) {
    fail('prompt', 'token-id prompts are not supported; send the prompt as text');
  }
  return fail('prompt', 'prompt must be a non-empty string or a non-empty array of strings');
}

function stopOf(stop: unknown): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  if (typeof stop === 'string') return [stop];
  if (Array.isArray(stop) && stop.length <= 4 && stop.every((entry) => typeof entry === 'string')) return stop as string[];
  return fail('stop', 'stop must be a string or an array of up to 4 strings');
}

/** Decodes and checks a legacy completions body; unsupported options are refused, never silently ignored. */
export function decodeCompletionsRequest(body: unknown): CompletionsRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) fail('body', 'the body must be a JSON object');
  const fields = body as JsonObject;
  if (typeof fields.model !== 'string' || fields.model === '') fail('model', 'model is required');
  const prompts = promptsOf(fields.prompt);
  const maxTokens = optionalNumber(fields, 'max_tokens');
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) fail('max_tokens', 'max_tokens must be a positive integer');
  const n = optionalNumber(fields, 'n');
  if (n !== undefined && n !== 1) fail('n', 'only n=1 is supported');
  const bestOf = optionalNumber(fields, 'best_of');
  if (bestOf !== undefined && bestOf !== 1) fail('best_of', 'only best_of=1 is supported');
  const logprobs = optionalNumber(fields, 'logprobs');
  if (logprobs !== undefined && logprobs > 0) fail('logprobs', 'logprobs are not supported');
  if (typeof fields.suffix === 'string' && fields.suffix !== '') fail('suffix', 'suffix (insertion) is not supported');
  if (fields.stream !== undefined && fields.stream !== null && typeof fields.stream !== 'boolean') fail('stream', 'stream must be a boolean');
  const streamOptions = fields.stream_options as JsonObject | null | undefined;
  return {
    prompts,
    echo: fields.echo === true,
    includeUsage: fields.stream !== true || streamOptions?.include_usage === true,
    template: {
      model: fields.model,
      tools: [],
      stream: fields.stream === true,
      maxOutputTokens: maxTokens,
      temperature: optionalNumber(fields, 'temperature'),
      topP: optionalNumber(fields, 'top_p'),
      stop: stopOf(fields.stop),
    },
  };
}

export function requestForPrompt(decoded: CompletionsRequest, prompt: string): NormalizedRequest {
  return { ...decoded.template, messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }] };
}

export function legacyFinishReason(reason: FinishReason | undefined): string | null {
  if (reason === undefined) return null;
  if (reason === 'length') return 'length';
  if (reason === 'content-filter') return 'content_filter';
  return 'stop';
}

export interface CompletionsIdentity {
  id: string;
  createdSeconds: number;
  model: string;
}

export function completionsIdentity(model: string, nowMs: number): CompletionsIdentity {
  return { id: newId('cmpl'), createdSeconds: Math.floor(nowMs / 1000), model };
}

/** Usage when the upstream reported none: our tokenizer's count of the prompt and the text. */
export async function estimatedUsage(prompt: string, text: string): Promise<Usage> {
  return { inputTokens: await countTextTokens(prompt), outputTokens: await countTextTokens(text) };
}

export function legacyUsage(usages: Usage[]): JsonObject {
  const promptTokens = usages.reduce((sum, usage) => sum + usage.inputTokens, 0);
  const completionTokens = usages.reduce((sum, usage) => sum + usage.outputTokens, 0);
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

export function completionBody(identity: CompletionsIdentity, choices: { text: string; finishReason: FinishReason | undefined }[], usages: Usage[]): JsonObject {
  return {
    id: identity.id,
    object: 'text_completion',
    created: identity.createdSeconds,
    model: identity.model,
    choices: choices.map((choice, index) => ({ text: choice.text, index, logprobs: null, finish_reason: legacyFinishReason(choice.finishReason) ?? 'stop' })),
    usage: legacyUsage(usages),
  };
}

/** One legacy stream chunk: a text delta, or the closing chunk of a choice with its finish reason. */
export function completionChunk(identity: CompletionsIdentity, index: number, text: string, finishReason: string | null): JsonObject {
  return {
    id: identity.id,
    object: 'text_completion',
    created: identity.createdSeconds,
    model: identity.model,
    choices: [{ text, index, logprobs: null, finish_reason: finishReason }],
  };
}

/** The trailing usage-only chunk (`stream_options.include_usage`). */
export function completionUsageChunk(identity: CompletionsIdentity, usages: Usage[]): JsonObject {
  return { id: identity.id, object: 'text_completion', created: identity.createdSeconds, model: identity.model, choices: [], usage: legacyUsage(usages) };
}

/** The protocol-native error written inside an already started legacy stream. */
export function completionStreamError(error: AppError): JsonObject {
  return { error: { message: error.status >= 500 && !error.code.startsWith('UPSTREAM') ? 'Internal server error' : error.message, type: 'api_error', code: error.code.toLowerCase() } };
}
