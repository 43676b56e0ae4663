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
 * Ajv's coercion turns the strings "Infinity" and "1e400" into an infinite number that passes `integer` and
 * `number` schemas without their range checks, so query and path values are checked once more after validation.
 */
export function nonFiniteIssues(loc: 'query' | 'path', values: unknown): ValidationIssue[] {
  if (typeof values !== 'object' || values === null) return [];
  return Object.entries(values)
    .filter(([, value]) => (Array.isArray(value) ? value : [value]).some((item) => typeof item === 'number' && !Number.isFinite(item)))
    .map(([name]) => ({ loc: [loc, name], msg: 'must be a finite number', type: 'finite_number' }));
}
