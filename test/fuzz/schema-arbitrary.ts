/**
 * fast-check arbitraries derived from the JSON schemas of the OpenAPI catalogue: values that follow a schema
 * ("valid-ish"), and values that break it on purpose (missing required fields, wrong types, extra fields,
 * nested junk, huge strings, non-objects).
 */
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
}

/** Strings that tend to break parsers, paths, SQL and encodings. */
export const nastyString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'a\u0000b',
    '0',
    '-1',
    'null',
    'undefined',
    'true',
    'NaN',
    '1e309',
    '99999999999999999999999',
    '../../etc/passwd',
    '..%2F..%2Fetc',
    '%00',
    '\u0000',
    "' OR 1=1 --",
    '{"a":1}',
    '[]',
    'power-ai',
    'gpt-test',
    '\uD800',
    '😀🚀',
    'ünïcödé',
    'a'.repeat(300),
    '/tmp',
    '.',
    '..',
    '~',
    'C:\\Windows',
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ maxLength: 20 }),
);

/** Junk of any JSON shape, nested a few levels deep. */
export const junk: fc.Arbitrary<unknown> = fc.oneof(
  { maxDepth: 3 },
  fc.jsonValue({ maxDepth: 3 }),
  nastyString,
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e308, -0, 2 ** 63, 0.5, -1),
);

/** A long string that still fits well inside the body limit. */
export const hugeString = fc
  .constantFrom(10_000, 100_000, 1_000_000)
  .chain((length) => fc.constantFrom('x', 'é', '😀', '\\"').map((unit) => unit.repeat(Math.ceil(length / unit.length))));

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (schema.type) return [schema.type];
  if (schema.properties) return ['object'];
  return [];
}

export function fromSchema(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return junk;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants && variants.length > 0) return fc.oneof(...variants.map((variant) => fromSchema(variant, depth + 1)));
  if (schema.allOf && schema.allOf.length > 0) return fromSchema(schema.allOf[0], depth + 1);
  const types = typesOf(schema);
  if (types.length === 0) return junk;
  return fc.oneof(...types.map((type) => fromType(type, schema, depth)));
}

function fromType(type: string, schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string': {
      const fits = (text: string) => text.length >= (schema.minLength ?? 0) && text.length <= (schema.maxLength ?? Infinity);
      return fc.oneof(
        {
          weight: 3,
          arbitrary: fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, 30) }).filter(fits),
        },
        { weight: 1, arbitrary: nastyString.filter(fits) },
      );
    }
    case 'integer': {
      const inRange = fc.integer({
        min: Math.max(schema.minimum ?? -1_000, -1_000_000),
        max: Math.min(schema.maximum ?? 1_000_000, 1_000_000),
      });
      if (schema.maximum !== undefined) return inRange;
      // No upper bound declared: integers past 2^53 and past a 64-bit column are "valid" too.
      return fc.oneof({ weight: 4, arbitrary: inRange }, { weight: 1, arbitrary: fc.constantFrom(2 ** 53 + 2, 1e20, 1e300) });
    }
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(schema.items, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'object':
      return objectFrom(schema, depth);
    default:
      return junk;
  }
}

function objectFrom(schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) shape[name] = fromSchema(property, depth + 1);
  return fc.record(shape, { requiredKeys: [...required].filter((name) => name in shape) }) as fc.Arbitrary<Record<string, unknown>>;
}

/** A value of the wrong JSON type for the schema (or junk when the schema accepts anything). */
export function wrongType(schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  const types = new Set(schema ? typesOf(schema) : []);
  const candidates: fc.Arbitrary<unknown>[] = [];
  if (!types.has('string')) candidates.push(nastyString);
  if (!types.has('integer') && !types.has('number')) candidates.push(fc.integer(), fc.constant(1e308));
  if (!types.has('boolean')) candidates.push(fc.boolean());
  if (!types.has('object')) candidates.push(fc.dictionary(fc.string({ maxLength: 5 }), junk, { maxKeys: 3 }));
  if (!types.has('array')) candidates.push(fc.array(junk, { maxLength: 3 }));
  if (!types.has('null')) candidates.push(fc.constant(null));
  return candidates.length > 0 ? fc.oneof(...candidates) : junk;
}

/** Bodies for an operation: schema-shaped, each kind of breakage, or no schema at all. */
export function bodyArbitrary(schema: JsonSchema | undefined, seeds: Record<string, unknown>[] = []): fc.Arbitrary<unknown> {
  // Known-good bodies make the mutations below reach handlers instead of stopping at validation.
  const valid = seeds.length > 0 ? fc.oneof(fc.constantFrom(...seeds), fromSchema(schema)) : fromSchema(schema);
  const properties = Object.keys(schema?.properties ?? {});
  const required = schema?.required ?? [];
  const mutations: fc.Arbitrary<unknown>[] = [
    valid,
    valid,
    ...seeds.map((seed) => fc.constant(seed)),
    // Extra fields and nested junk next to the valid ones.
    fc
      .tuple(valid, fc.dictionary(nastyString, junk, { minKeys: 1, maxKeys: 4 }))
      .map(([value, extra]) => (isObject(value) ? { ...extra, ...value } : extra)),
    // Wrong JSON type for the body itself.
    wrongType(schema),
    junk,
  ];
  if (required.length > 0) {
    mutations.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([value, name]) => (isObject(value) ? withoutKey(value, name) : value)),
    );
  }
  if (properties.length > 0) {
    mutations.push(
      fc
        .tuple(valid, fc.constantFrom(...properties))
        .chain(([value, name]) =>
          fc
            .oneof(wrongType(schema?.properties?.[name]), hugeString, junk)
            .map((bad) => (isObject(value) ? { ...value, [name]: bad } : { [name]: bad })),
        ),
    );
  }
  return fc.oneof(...mutations);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutKey(value: Record<string, unknown>, name: string): Record<string, unknown> {
  const copy = { ...value };
  delete copy[name];
  return copy;
}
