/**
 * Legacy text completions (`POST /v1/completions`) body → one normalized request per prompt: each prompt becomes
 * one user input. A list of prompts is a batch: one call per prompt, one choice per prompt. Unsupported options
 * are refused, never silently ignored.
 */
import { validationError } from '../../../kernel/errors.js';
import { type JsonObject } from '../../../kernel/json.js';
import type { NormalizedRequest } from '../../normalized/index.js';

export const COMPLETION_PROMPTS_MAX = 16;

export interface CompletionsRequest {
  /** The first prompt's call (the driver starts it; the others start from `prompts`). */
  request: NormalizedRequest;
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
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1))
    fail('max_tokens', 'max_tokens must be a positive integer');
  const n = optionalNumber(fields, 'n');
  if (n !== undefined && n !== 1) fail('n', 'only n=1 is supported');
  const bestOf = optionalNumber(fields, 'best_of');
  if (bestOf !== undefined && bestOf !== 1) fail('best_of', 'only best_of=1 is supported');
  const logprobs = optionalNumber(fields, 'logprobs');
  if (logprobs !== undefined && logprobs > 0) fail('logprobs', 'logprobs are not supported');
  if (typeof fields.suffix === 'string' && fields.suffix !== '') fail('suffix', 'suffix (insertion) is not supported');
  if (fields.stream !== undefined && fields.stream !== null && typeof fields.stream !== 'boolean')
    fail('stream', 'stream must be a boolean');
  const streamOptions = fields.stream_options as JsonObject | null | undefined;
  const template: CompletionsRequest['template'] = {
    model: fields.model,
    tools: [],
    stream: fields.stream === true,
    maxOutputTokens: maxTokens,
    temperature: optionalNumber(fields, 'temperature'),
    topP: optionalNumber(fields, 'top_p'),
    stop: stopOf(fields.stop),
    source: { protocol: 'completions', body: fields },
  };
  return {
    request: promptRequest(template, prompts[0]!),
    prompts,
    echo: fields.echo === true,
    includeUsage: fields.stream !== true || streamOptions?.include_usage === true,
    template,
  };
}

function promptRequest(template: CompletionsRequest['template'], prompt: string): NormalizedRequest {
  return { ...template, messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }] };
}

/** The normalized request of one prompt of the batch. */
export function requestForPrompt(decoded: CompletionsRequest, prompt: string): NormalizedRequest {
  return promptRequest(decoded.template, prompt);
}
