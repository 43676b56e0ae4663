/** Translates Ajv validation errors (Fastify schemas) into FastAPI-style `detail` issues. */
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { ValidationIssue } from '../kernel/errors.js';

const CONTEXT_LOC: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

const TYPE_NAMES: Record<string, string> = {
  required: 'missing',
  minimum: 'greater_than_equal',
  exclusiveMinimum: 'greater_than',
  maximum: 'less_than_equal',
  exclusiveMaximum: 'less_than',
  minLength: 'string_too_short',
  maxLength: 'string_too_long',
  minItems: 'too_short',
  maxItems: 'too_long',
  pattern: 'string_pattern_mismatch',
  enum: 'enum',
  const: 'literal_error',
  additionalProperties: 'extra_forbidden',
  format: 'value_error',
  anyOf: 'union_error',
  oneOf: 'union_error',
};

export function issuesFromValidation(errors: FastifySchemaValidationError[], context: string | undefined): ValidationIssue[] {
  const root = CONTEXT_LOC[context ?? 'body'] ?? 'body';
  return errors.map((error) => {
    const path = (error.instancePath ?? '')
      .split('/')
      .filter((part) => part !== '')
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part.replace(/~1/g, '/').replace(/~0/g, '~')));
    const params = (error.params ?? {}) as Record<string, unknown>;
    if (typeof params.missingProperty === 'string') path.push(params.missingProperty);
    if (typeof params.additionalProperty === 'string') path.push(params.additionalProperty);
    let type = TYPE_NAMES[error.keyword] ?? error.keyword;
    if (error.keyword === 'type') type = `${String(params.type ?? 'value')}_type`;
    const msg = error.keyword === 'required' ? 'Field required' : (error.message ?? 'Invalid value');
    return { loc: [root, ...path], msg, type };
  });
}

/** The deepest JSON nesting a body may have; deeper bodies are refused at parse (422 `json_too_deep`). */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests arrays and objects more than `limit` levels deep (brackets inside strings do not count). */
export function jsonTooDeep(text: string, limit: number): boolean {
  if (text.length <= limit * 2) return false;
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === 0x22) {
      // Skip the string: to the next quote not escaped by a backslash.
      for (index++; index < text.length; index++) {
        const inner = text.charCodeAt(index);
        if (inner === 0x5c) index++;
        else if (inner === 0x22) break;
      }
    } else if (char === 0x7b || char === 0x5b) {
      if (++depth > limit) return true;
    } else if (char === 0x7d || char === 0x5d) {
      depth--;
    }
  }
  return false;
}

const DECIMAL_INTEGER = /^-?\d+$/;
const DECIMAL_NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** The JSON types a (TypeBox) schema admits: `type` (or a type list), and those of `anyOf`/`oneOf` branches. */
function typesOf(schema: unknown): Set<string> {
  const types = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const { type, anyOf, oneOf, const: constant } = node as { type?: unknown; anyOf?: unknown[]; oneOf?: unknown[]; const?: unknown };
    if (typeof type === 'string') types.add(type);
    if (Array.isArray(type)) for (const entry of type) if (typeof entry === 'string') types.add(entry);
    if (type === undefined && constant !== undefined) types.add(typeof constant);
    for (const branch of [...(anyOf ?? []), ...(oneOf ?? [])]) visit(branch);
  };
  visit(schema);
  return types;
}

function coerceText(value: unknown, types: Set<string>): unknown {
  if (typeof value !== 'string') return value;
  if (types.has('string')) {
    // A string-typed parameter stays text unless another admitted type reads it exactly.
    if (!types.has('integer') && !types.has('number') && !types.has('boolean')) return value;
  }
  if (types.has('integer') && DECIMAL_INTEGER.test(value)) return Number(value);
  if (types.has('number') && DECIMAL_NUMBER.test(value)) return Number(value);
  if (types.has('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** Whether a query or path schema has a parameter that is not plain text (see `coerceParameters`). */
export function needsCoercion(schema: unknown): boolean {
  const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  return Object.values(properties).some((property) => {
    const types = typesOf(property);
    return types.has('integer') || types.has('number') || types.has('boolean') || types.has('array');
  });
}

/**
 * Query and path values arrive as text; the schemas' integers, numbers and booleans are read from it here, in
 * place, before validation: integers in decimal digits only (`0x10`, `1e1`, ` 16`, `+16` stay text and fail
 * validation as 422), numbers in decimal notation, booleans as `true`/`false`. An array-typed parameter given
 * once becomes a one-item array. Bodies are never coerced (Ajv runs with `coerceTypes: false`).
 */
export function coerceParameters(schema: unknown, values: unknown): void {
  if (typeof values !== 'object' || values === null) return;
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (!properties) return;
  const target = values as Record<string, unknown>;
  for (const [name, property] of Object.entries(properties)) {
    if (!Object.prototype.hasOwnProperty.call(target, name)) continue;
    const types = typesOf(property);
    const value = target[name];
    if (types.has('array')) {
      const itemTypes = typesOf((property as { items?: unknown }).items);
      const items = Array.isArray(value) ? value : [value];
      target[name] = items.map((item) => coerceText(item, itemTypes));
    } else {
      target[name] = coerceText(value, types);
    }
  }
}

/**
 * Values that pass the schemas but no part of the service can use: a number beyond 2^53 is not exact and
 * overflows a `bigint` column; PostgreSQL rejects text containing U+0000; a string with a lone UTF-16 surrogate
 * has no UTF-8 form (the app-server and upstreams drop or mangle it). Query, path and body values (and body
 * keys) are checked once more after validation.
 */
export function unusableValueIssues(loc: 'query' | 'path', values: unknown): ValidationIssue[] {
  if (typeof values !== 'object' || values === null) return [];
  const issues: ValidationIssue[] = [];
  for (const [name, value] of Object.entries(values)) {
    const items: unknown[] = Array.isArray(value) ? value : [value];
    if (items.some((item) => typeof item === 'number' && !isUsableNumber(item))) {
      issues.push({ loc: [loc, name], msg: UNUSABLE_NUMBER, type: 'less_than_equal' });
    } else {
      for (const item of items) {
        const issue = typeof item === 'string' ? stringIssue(item) : null;
        if (issue) {
          issues.push({ loc: [loc, name], ...issue });
          break;
        }
      }
    }
  }
  return issues;
}

const NUL_IN_STRING = 'must not contain NUL (U+0000) characters';
const LONE_SURROGATE = 'must be valid Unicode (no unpaired UTF-16 surrogate)';
const UNUSABLE_NUMBER = `must be a number between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`;
const LONE_SURROGATE_PATTERN = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isUsableNumber(value: number): boolean {
  return Math.abs(value) <= Number.MAX_SAFE_INTEGER;
}

function stringIssue(value: string): { msg: string; type: string } | null {
  if (value.includes('\u0000')) return { msg: NUL_IN_STRING, type: 'string_nul' };
  if (LONE_SURROGATE_PATTERN.test(value)) return { msg: LONE_SURROGATE, type: 'string_unicode' };
  return null;
}

/** What a JSON body's text could hold that `unusableBodyIssues` must look for; null when it can hold neither. */
export interface BodySuspicions {
  /** A NUL or a lone surrogate: in JSON text both can only come as a `\u` escape (a raw control character is invalid JSON, and decoded UTF-8 has no lone surrogate). */
  strings: boolean;
  /** A number beyond 2^53: it needs 16 or more digits, or an exponent of two or more. */
  numbers: boolean;
}

const MAY_HOLD_UNUSABLE_STRINGS = /\\u0000|\\u[dD][89a-fA-F]/;
const MAY_HOLD_UNUSABLE_NUMBERS = /\d{16}|[eE][+-]?\d{2}/;

export function bodySuspicions(text: string): BodySuspicions | null {
  const strings = MAY_HOLD_UNUSABLE_STRINGS.test(text);
  const numbers = MAY_HOLD_UNUSABLE_NUMBERS.test(text);
  return strings || numbers ? { strings, numbers } : null;
}

/**
 * Numbers, strings and keys anywhere in a JSON body that no part of the service can use (see `unusableValueIssues`),
 * looking only for what `suspicions` says the text could hold: a long prompt whose text could hold no bad string
 * is not scanned string by string because a digit run somewhere could be an inexact number.
 */
export function unusableBodyIssues(body: unknown, suspicions: BodySuspicions = { strings: true, numbers: true }): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const loc: (string | number)[] = ['body'];
  const visit = (value: unknown): void => {
    if (typeof value === 'number') {
      if (suspicions.numbers && !isUsableNumber(value)) issues.push({ loc: [...loc], msg: UNUSABLE_NUMBER, type: 'less_than_equal' });
    } else if (typeof value === 'string') {
      const issue = suspicions.strings ? stringIssue(value) : null;
      if (issue) issues.push({ loc: [...loc], ...issue });
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
        loc.push(key);
        const keyIssue = suspicions.strings && typeof key === 'string' ? stringIssue(key) : null;
        if (keyIssue) issues.push({ loc: [...loc], ...keyIssue });
        visit(item);
        loc.pop();
      }
    }
  };
  visit(body);
  return issues;
}
