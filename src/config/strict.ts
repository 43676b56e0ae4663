/**
 * Strictness and error wording of the config file: every object of the schema refuses fields it does not name,
 * an error names its field as `providers[0].apiKey`, and an unknown field close to a known one gets a did-you-mean.
 */
import { ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';

type SchemaNode = Record<string, unknown> & { properties?: Record<string, SchemaNode> };

/**
 * Sets `additionalProperties: false` on every object schema (nested ones, array items, union members) that does
 * not say otherwise, so a misspelt optional field deep in the file stops the start instead of being ignored.
 * Records (`patternProperties`) keep their open key set. Mutates and returns the schema.
 */
export function refuseUnknownFields<T extends TSchema>(schema: T): T {
  visit(schema as unknown as SchemaNode);
  return schema;
}

function visit(node: SchemaNode): void {
  if (node === null || typeof node !== 'object') return;
  if (node.type === 'object' && node.properties !== undefined && node.additionalProperties === undefined) {
    node.additionalProperties = false;
  }
  for (const child of Object.values(node.properties ?? {})) visit(child);
  for (const key of ['items', 'additionalProperties', 'not'] as const) {
    const child = node[key];
    if (child !== null && typeof child === 'object') visit(child as SchemaNode);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = node[key];
    if (Array.isArray(list)) for (const child of list) visit(child as SchemaNode);
  }
  const patterns = node.patternProperties;
  if (patterns !== null && typeof patterns === 'object') for (const child of Object.values(patterns)) visit(child as SchemaNode);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `["providers", 0, "apiKey"]` → `providers[0].apiKey`; keys that are not identifiers are quoted (`rateCards["heavy-load"]`). */
export function fieldPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number' || /^\d+$/.test(segment)) out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out === '' ? '(top level)' : out;
}

/** A JSON pointer (`/providers/0/api_key`) as segments. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * The known field an unknown one most likely meant: the same letters ignoring case, `_` and `-`, or few edits away
 * (at most one per three letters, two at most).
 */
export function didYouMean(unknown: string, known: readonly string[]): string | undefined {
  const squash = (value: string) => value.toLowerCase().replace(/[_-]/g, '');
  const exact = known.find((candidate) => squash(candidate) === squash(unknown));
  if (exact !== undefined) return exact;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(squash(unknown), squash(candidate));
    if (distance <= Math.min(2, Math.floor(candidate.length / 3)) && (best === undefined || distance < best.distance)) {
      best = { name: candidate, distance };
    }
  }
  return best?.name;
}

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, index) => index)];
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const above = rows[i - 1]!;
      let best = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      row[j] = best;
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** One line for a schema error: `providers[0].api_key: unknown field; did you mean "apiKey"?`. */
export function describeSchemaError(error: ValueError): string {
  const segments = pointerSegments(error.path);
  const where = fieldPath(segments);
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const name = segments[segments.length - 1] ?? '';
    const known = Object.keys((error.schema as SchemaNode).properties ?? {});
    const guess = didYouMean(name, known);
    return `${where}: unknown field${guess === undefined ? '' : `; did you mean "${guess}"?`}`;
  }
  return `${where}: ${error.message}`;
}
