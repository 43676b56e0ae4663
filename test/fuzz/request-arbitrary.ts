/**
 * One fast-check arbitrary of HTTP requests per OpenAPI operation: path parameters (ids, integers, huge numbers,
 * unicode, traversal strings, empty), query parameters (in and out of range, wrong types), headers, bodies (see
 * schema-arbitrary.ts) and credentials (none, a garbage bearer, the customer's System Token, the operator token).
 */
import fc from 'fast-check';
import { bodyArbitrary, fromSchema, hugeString, nastyString, wrongType, type JsonSchema } from './schema-arbitrary.js';

export type Auth = 'none' | 'garbage' | 'customer' | 'customer-x-api-key' | 'operator';

export interface Operation {
  method: string;
  /** OpenAPI path template, e.g. `/api/v1/me/api-keys/{key_id}`. */
  template: string;
  parameters: { in: string; name: string; required?: boolean; schema?: JsonSchema }[];
  bodySchema?: JsonSchema;
  hasBody: boolean;
}

export interface FuzzRequest {
  method: string;
  url: string;
  auth: Auth;
  headers: Record<string, string>;
  /** Raw body text (already JSON-encoded, or deliberately not JSON). */
  body?: string;
}

/**
 * How far a route may be driven. `full`: anything. `rejected`: with valid credentials only requests that the
 * route rejects before its handler runs (a body of the wrong JSON type, an out-of-range query), because its
 * handler starts an app-server process or opens an event stream that never ends.
 */
/** Known-good inputs of an operation, which generated requests send as they are and mutate. */
export interface Seeds {
  bodies?: Record<string, unknown>[];
  query?: Record<string, string>;
}

export interface RouteLimit {
  /** Query values that fail validation (sent with valid credentials). */
  invalidQuery?: Record<string, string>;
  /** Valid credentials may send a body of the wrong JSON type. */
  wrongBody?: boolean;
}

export function operationsOf(catalogue: any): Operation[] {
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries<Record<string, any>>(catalogue.paths)) {
    for (const [method, operation] of Object.entries<any>(methods)) {
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema as JsonSchema | undefined;
      operations.push({
        method: method.toUpperCase(),
        template,
        parameters: operation.parameters ?? [],
        bodySchema,
        hasBody: operation.requestBody !== undefined,
      });
    }
  }
  return operations;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const hugeNumber = fc.constantFrom(
  '9007199254740993',
  '99999999999999999999999999',
  '1e400',
  '-9223372036854775809',
  '0x10',
  '1.5',
  '-0',
  'Infinity',
);

/** Path segment values; `ids` are real ids of this service (customer, key, project) so some lookups hit. */
function pathValue(schema: JsonSchema | undefined, ids: string[], wildcard: boolean): fc.Arbitrary<string> {
  const encoded = fc
    .oneof(
      fromSchema(schema).map((value) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))),
      fc.integer().map(String),
      hugeNumber,
      nastyString,
    )
    .map((value) => encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD')));
  const raw = fc.constantFrom('', '..', '../..', '%2e%2e%2f%2e%2e', '..%2F..%2Fetc%2Fpasswd', '%00', '%', '%zz', '%C0%AE', 'a%20b');
  const options = [fc.constantFrom(...ids), encoded, raw];
  if (wildcard) options.push(fc.constantFrom('gpt-test', 'vendor/slashed-model', 'a/b/c', '../../../etc/passwd', 'power-ai/../x'));
  return fc.oneof(...options);
}

function queryValue(schema: JsonSchema | undefined): fc.Arbitrary<string | string[]> {
  const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  return fc.oneof(
    fromSchema(schema).map(asText),
    fromSchema(schema).map(asText),
    wrongType(schema).map(asText),
    hugeNumber,
    nastyString,
    fc.array(nastyString, { minLength: 2, maxLength: 3 }),
  );
}

function queryString(entries: [string, string | string[]][]): string {
  const search = new URLSearchParams();
  for (const [name, value] of entries) {
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, item);
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

function bodyText(operation: Operation, seeds: Seeds): fc.Arbitrary<string | undefined> {
  const json = bodyArbitrary(operation.bodySchema, seeds.bodies).map((value) => JSON.stringify(value) ?? 'null');
  const broken = fc.constantFrom('{', '{"a":', 'not json', '[1,2', '\u0000', '{"a":1}}');
  if (!operation.hasBody)
    return fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.oneof(json, broken) });
  return fc.oneof(
    { weight: 8, arbitrary: json },
    { weight: 1, arbitrary: broken },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: hugeString.map((text) => JSON.stringify({ text })) },
    { weight: 2, arbitrary: hostileBody(operation, seeds) },
  );
}

const LONG_NAME = 'n'.repeat(300);

/**
 * Bodies that once reached handlers and failed there: JSON nested past the depth limit (64) up to 10,000 deep,
 * lone surrogates in keys and values, names over 255 bytes where paths go, and numbers past 2^53 or the float
 * range where strings go (all must be 4xx; none may be coerced into something a handler accepts).
 */
function hostileBody(operation: Operation, seeds: Seeds): fc.Arbitrary<string> {
  const base = bodyArbitrary(operation.bodySchema, seeds.bodies).map((value) =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {},
  );
  const inner = (value: Record<string, unknown>) => JSON.stringify(value).slice(1, -1);
  const joined = (prefix: string, value: Record<string, unknown>) => `{${prefix}${inner(value) === '' ? '' : `,${inner(value)}`}}`;
  return fc.oneof(
    fc.tuple(base, fc.constantFrom(65, 1_000, 10_000), fc.constantFrom('[', '{"a":')).map(([value, depth, open]) => {
      const close = open === '[' ? ']' : '}';
      return joined(`"deep":${open.repeat(depth)}1${close.repeat(depth)}`, value);
    }),
    base.map((value) => joined('"\\ud800":1', value)),
    base.map((value) =>
      JSON.stringify(
        Object.fromEntries(Object.entries(value).map(([key, item]) => [key, typeof item === 'string' ? `${item}\ud800` : item])),
      ),
    ),
    base.map((value) => JSON.stringify({ ...value, path: LONG_NAME, cwd: `${LONG_NAME}/x`, name: LONG_NAME })),
    fc.tuple(base, fc.constantFrom('9007199254740993', '1e400', '-1e400', '12')).map(
      ([value, number]) =>
        `{${Object.entries(value)
          .map(([key, item]) => `${JSON.stringify(key)}:${typeof item === 'string' ? number : JSON.stringify(item)}`)
          .join(',')}}`,
    ),
  );
}

// Most requests carry valid credentials so that they get past authentication to validation and handlers.
const authArbitrary = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom<Auth>('none', 'garbage', 'customer-x-api-key') },
  { weight: 4, arbitrary: fc.constant<Auth>('customer') },
  { weight: 3, arbitrary: fc.constant<Auth>('operator') },
);

export function requestArbitrary(operation: Operation, ids: string[], seeds: Seeds = {}, limit?: RouteLimit): fc.Arbitrary<FuzzRequest> {
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === 'path');
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === 'query');
  const headerParameters = operation.parameters.filter((parameter) => parameter.in === 'header');
  // A route that starts processes never sees this service's real ids: lookups of the random ones fail first.
  const pathIds = limit ? ['no-such-id-0'] : ids;
  const path = fc
    .tuple(...pathParameters.map((parameter) => pathValue(parameter.schema, pathIds, parameter.name === '*')))
    .map((values) => {
      let url = operation.template;
      pathParameters.forEach((parameter, index) => {
        url = url.replace(`{${parameter.name}}`, values[index]!);
      });
      return url;
    });
  const query = fc.tuple(
    ...queryParameters.map((parameter) => {
      const seed = seeds.query?.[parameter.name];
      const value = seed === undefined ? queryValue(parameter.schema) : fc.oneof(fc.constant(seed), queryValue(parameter.schema));
      return fc.option(value, { nil: undefined, freq: 3 }).map((chosen) => [parameter.name, chosen] as const);
    }),
    fc.option(fc.tuple(nastyString, nastyString), { nil: undefined, freq: 2 }),
  );
  const headers = fc.tuple(
    ...headerParameters.map((parameter) =>
      fc
        .option(
          fc.oneof(
            fromSchema(parameter.schema).map(String),
            nastyString.map((text) => text.replace(/[^\x20-\x7e]/g, '')),
          ),
          { nil: undefined },
        )
        .map((value) => [parameter.name, value] as const),
    ),
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/x-www-form-urlencoded',
  );
  return fc
    .record({ auth: authArbitrary, path, query, headers, body: bodyText(operation, seeds), contentType })
    .map(({ auth, path: url, query: queryEntries, headers: headerEntries, body, contentType: type }) => {
      const entries: [string, string | string[]][] = [];
      const [extra, ...named] = [queryEntries[queryEntries.length - 1], ...queryEntries.slice(0, -1)] as unknown as [
        [string, string] | undefined,
        ...(readonly [string, string | string[] | undefined])[],
      ];
      for (const [name, value] of named) if (value !== undefined) entries.push([name, value]);
      if (extra) entries.push(extra);
      const requestHeaders: Record<string, string> = {};
      for (const [name, value] of headerEntries) if (value !== undefined) requestHeaders[name] = value;
      if (body !== undefined) requestHeaders['content-type'] = type;
      const request: FuzzRequest = { method: operation.method, url: `${url}${queryString(entries)}`, auth, headers: requestHeaders, body };
      return limit ? limited(request, operation, limit) : request;
    });
}

/** Keeps a request to a limited route among those rejected before its handler runs. */
function limited(request: FuzzRequest, operation: Operation, limit: RouteLimit): FuzzRequest {
  if (request.auth === 'none' || request.auth === 'garbage') return request;
  const path = request.url.split('?', 1)[0]!;
  if (limit.wrongBody && operation.hasBody) {
    // A JSON array is never an object body, whatever else the request carries.
    return {
      ...request,
      url: path,
      headers: { ...request.headers, 'content-type': 'application/json' },
      body: JSON.stringify([request.body ?? null]),
    };
  }
  if (limit.invalidQuery) return { ...request, url: `${path}${queryString(Object.entries(limit.invalidQuery))}` };
  return { ...request, auth: 'garbage' };
}
