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

/**
 * Values that pass the schemas but no part of the service can use. Ajv's coercion turns the strings "Infinity"
 * and "1e400" into an infinite number that passes `integer` and `number` schemas without their range checks; a
 * number beyond 2^53 is not exact and overflows a `bigint` column; PostgreSQL rejects text containing U+0000.
 * Query, path and body values are checked once more after validation.
 */
export function unusableValueIssues(loc: 'query' | 'path', values: unknown): ValidationIssue[] {
  if (typeof values !== 'object' || values === null) return [];
  const issues: ValidationIssue[] = [];
  for (const [name, value] of Object.entries(values)) {
    const items: unknown[] = Array.isArray(value) ? value : [value];
    if (items.some((item) => typeof item === 'number' && !isUsableNumber(item))) {
      issues.push({ loc: [loc, name], msg: UNUSABLE_NUMBER, type: 'less_than_equal' });
    } else if (items.some((item) => typeof item === 'string' && item.includes('\u0000'))) {
      issues.push({ loc: [loc, name], msg: NUL_IN_STRING, type: 'string_nul' });
    }
  }
  return issues;
}

const NUL_IN_STRING = 'must not contain NUL (U+0000) characters';
const UNUSABLE_NUMBER = `must be a number between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`;

function isUsableNumber(value: number): boolean {
  return Math.abs(value) <= Number.MAX_SAFE_INTEGER;
}

/** Numbers and strings anywhere in a JSON body that no part of the service can use (see `unusableValueIssues`). */
export function unusableBodyIssues(body: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const loc: (string | number)[] = ['body'];
  const visit = (value: unknown): void => {
    if (typeof value === 'number') {
      if (!isUsableNumber(value)) issues.push({ loc: [...loc], msg: UNUSABLE_NUMBER, type: 'less_than_equal' });
    } else if (typeof value === 'string') {
      if (value.includes('\u0000')) issues.push({ loc: [...loc], msg: NUL_IN_STRING, type: 'string_nul' });
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
        loc.push(key);
        visit(item);
        loc.pop();
      }
    }
  };
  visit(body);
  return issues;
}
