/**
 * Metadata of stored objects, as OpenAI documents it: at most 16 string pairs, keys up to 64 characters, values
 * up to 512. Violations are validation errors naming the offending key.
 */
import { validationError, type ValidationIssue } from '../../kernel/errors.js';

export const METADATA_PAIRS_MAX = 16;
export const METADATA_KEY_LENGTH_MAX = 64;
export const METADATA_VALUE_LENGTH_MAX = 512;

/** Checks a `metadata` value from a request body; `null`/absent mean "no metadata". Throws a 422 otherwise. */
export function parseMetadata(value: unknown, location: (string | number)[] = ['body', 'metadata']): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw validationError([{ loc: location, msg: 'metadata must be an object of string values', type: 'dict_type' }]);
  }
  const issues: ValidationIssue[] = [];
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > METADATA_PAIRS_MAX) {
    issues.push({ loc: location, msg: `metadata allows at most ${METADATA_PAIRS_MAX} pairs`, type: 'too_long' });
  }
  for (const [key, pairValue] of entries) {
    if (key.length === 0 || key.length > METADATA_KEY_LENGTH_MAX) {
      issues.push({
        loc: [...location, key],
        msg: `metadata keys must be 1 to ${METADATA_KEY_LENGTH_MAX} characters`,
        type: 'string_too_long',
      });
    }
    if (typeof pairValue !== 'string') {
      issues.push({ loc: [...location, key], msg: 'metadata values must be strings', type: 'string_type' });
    } else if (pairValue.length > METADATA_VALUE_LENGTH_MAX) {
      issues.push({
        loc: [...location, key],
        msg: `metadata values must be at most ${METADATA_VALUE_LENGTH_MAX} characters`,
        type: 'string_too_long',
      });
    }
  }
  if (issues.length > 0) throw validationError(issues);
  return Object.fromEntries(entries) as Record<string, string>;
}

/** Reads `metadata[key]=value` query parameters (as the OpenAI SDK serializes them) into a filter. */
export function metadataFilterFromQuery(query: Record<string, unknown>): Record<string, string> | undefined {
  const filter: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    const match = /^metadata\[(.+)\]$/.exec(name);
    if (!match) continue;
    const values = Array.isArray(value) ? value : [value];
    if (values.length !== 1 || typeof values[0] !== 'string') {
      throw validationError([{ loc: ['query', name], msg: 'a metadata filter takes one string value', type: 'string_type' }]);
    }
    filter[match[1]!] = values[0];
  }
  const nested = query.metadata;
  if (nested !== undefined) {
    if (typeof nested !== 'object' || nested === null || Array.isArray(nested)) {
      throw validationError([{ loc: ['query', 'metadata'], msg: 'use metadata[key]=value to filter by metadata', type: 'dict_type' }]);
    }
    Object.assign(filter, parseMetadata(nested, ['query', 'metadata']));
  }
  return Object.keys(filter).length > 0 ? filter : undefined;
}
