/** Small readers shared by the inbound decoders; each throws a 422 naming the field it could not read. */
import { validationError } from '../../../kernel/errors.js';
import { isJsonObject, type JsonObject } from '../../../kernel/json.js';
import { isReasoningEffort, REASONING_EFFORTS } from '../../../kernel/reasoning-effort.js';
import type { ReasoningEffort, ResponseFormat } from '../../normalized/index.js';

export type Json = JsonObject;
export const isObject = isJsonObject;

export function invalid(loc: (string | number)[], msg: string): never {
  throw validationError([{ loc: ['body', ...loc], msg, type: 'value_error' }]);
}

export function optionalNumber(body: Json, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) invalid([field], 'must be a number');
  return value;
}

export function optionalInteger(body: Json, field: string): number | undefined {
  const value = optionalNumber(body, field);
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) invalid([field], 'must be a positive integer');
  return value;
}

export function stopList(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  return invalid([field], 'must be a string or a list of strings');
}

export function reasoningEffort(value: unknown, loc: string[]): ReasoningEffort | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isReasoningEffort(value)) invalid(loc, `must be one of ${REASONING_EFFORTS.join(', ')}`);
  return value;
}

/**
 * Reads a structured-output request: chat's `response_format` ({type, json_schema:{name, schema, strict}}) or
 * Responses' `text.format` ({type, name, schema, strict}); `text` or absent means plain text.
 */
export function responseFormat(value: unknown, loc: string[]): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) return invalid(loc, 'must be an object');
  if (value.type === 'text') return undefined;
  if (value.type === 'json_object') return { type: 'json_object' };
  if (value.type === 'json_schema') {
    const spec = isObject(value.json_schema) ? value.json_schema : value;
    if (typeof spec.name !== 'string' || !isObject(spec.schema)) return invalid(loc, 'json_schema needs a name and a schema object');
    return {
      type: 'json_schema',
      name: spec.name,
      schema: spec.schema,
      ...(typeof spec.strict === 'boolean' ? { strict: spec.strict } : {}),
      ...(typeof spec.description === 'string' ? { description: spec.description } : {}),
    };
  }
  return invalid([...loc, 'type'], 'must be text, json_object or json_schema');
}
