/**
 * Hostile cases over the whole OpenAPI catalogue, derived per operation (so routes added later are covered):
 * for every JSON body, JSON nested 10,000 deep, a lone surrogate in a key and in each string field, each
 * scalar field sent with the wrong JSON type (a number where a string goes — also 2^53 + 1 and 1e400 — and a
 * string where a number or boolean goes), and names over 255 bytes where paths go; for every integer query or
 * path parameter, non-decimal notations (0x10, 1e1, +1). Every one must be a 4xx before any handler runs —
 * 0 5xx, 0 coercions (a coerced value would pass validation and reach the handler).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { operationsOf, type Operation } from './request-arbitrary.js';
import type { JsonSchema } from './schema-arbitrary.js';

/** The chat-bot webhook checks its secret before reading the body, so its cases carry it to reach validation. */
const WEBHOOK_SECRET = 'hostile-cases-webhook-secret-0123456789';

let upstream: ModelUpstream;
let context: TestContext;
let operations: Operation[];
let customer: { authorization: string };
let rpcKey: { authorization: string };

beforeAll(async () => {
  upstream = await startModelUpstream();
  context = await createTestContext({
    config: {
      chatbot: { webhookSecret: WEBHOOK_SECRET },
      providers: [{ id: 'openai-fake', kind: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-upstream-openai' }],
      models: [
        {
          id: 'gpt-test',
          provider: 'openai-fake',
          upstreamModel: 'upstream-gpt',
          capabilities: { tools: true, responsesApi: true },
          rateCard: 'standard',
        },
      ],
    } as never,
  });
  const catalogue = await context.app.inject({ method: 'GET', url: '/openapi.json', headers: operatorHeaders });
  operations = operationsOf(catalogue.json());
  const created = await context.services.customers.create({ email: `hostile-${Math.random().toString(36).slice(2)}@example.com` });
  customer = bearer(created.systemToken.key);
  const key = await context.app.inject({
    method: 'POST',
    url: '/api/v1/me/api-keys',
    headers: customer,
    payload: { name: 'rpc', allowed_surfaces: ['rpc'] },
  });
  rpcKey = bearer(key.json().key);
}, 30_000);

afterAll(async () => {
  await context?.close();
  await upstream?.close();
});

function credentials(template: string): Record<string, string> {
  if (template.startsWith('/api/admin/')) return operatorHeaders;
  if (template.startsWith('/api/rpc')) return rpcKey;
  if (template === '/api/v1/chatbot/webhook') return { 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET };
  return customer;
}

function typesOf(schema: JsonSchema | undefined): Set<string> {
  const types = new Set<string>();
  if (!schema) return types;
  if (Array.isArray(schema.type)) schema.type.forEach((type) => types.add(type));
  else if (schema.type) types.add(schema.type);
  if (schema.const !== undefined && schema.type === undefined) types.add(typeof schema.const);
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) typesOf(branch).forEach((type) => types.add(type));
  if (types.has('integer')) types.add('number');
  return types;
}

/** A value of the schema, as plain as possible (the case under test makes the body invalid anyway). */
function plain(schema: JsonSchema | undefined): unknown {
  if (!schema) return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const branch = (schema.anyOf ?? schema.oneOf)?.[0];
  if (branch) return plain(branch);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return baseBody(schema);
    case 'null':
      return null;
    default:
      return 'x'.repeat(Math.max(schema.minLength ?? 1, 1));
  }
}

function baseBody(schema: JsonSchema | undefined): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of schema?.required ?? []) body[name] = plain(schema?.properties?.[name]);
  return body;
}

interface Case {
  label: string;
  url: string;
  /** JSON text. */
  body?: string;
}

const PATH_FIELDS = /^(path|cwd|sourcePath|destinationPath)$/;

function bodyCases(operation: Operation, url: string): Case[] {
  const schema = operation.bodySchema;
  const base = baseBody(schema);
  const withRaw = (name: string, raw: string) => {
    const rest = Object.entries(base).filter(([key]) => key !== name);
    return `{${[...rest.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`), `${JSON.stringify(name)}:${raw}`].join(',')}}`;
  };
  const cases: Case[] = [
    { label: 'JSON 10,000 deep', url, body: withRaw('deep', `${'['.repeat(10_000)}${']'.repeat(10_000)}`) },
    { label: 'a lone surrogate in a key', url, body: withRaw('\ud800', '1') },
  ];
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const types = typesOf(property);
    if (types.size === 0) continue; // any JSON value goes here
    if (types.has('string')) cases.push({ label: `a lone surrogate in ${name}`, url, body: withRaw(name, '"x\\ud800"') });
    if (types.has('string') && PATH_FIELDS.test(name))
      cases.push({ label: `a 300-byte name in ${name}`, url, body: withRaw(name, JSON.stringify(`a/${'n'.repeat(300)}`)) });
    if (!types.has('number')) {
      for (const raw of ['12', '9007199254740993', '1e400'])
        cases.push({ label: `the number ${raw} as ${name}`, url, body: withRaw(name, raw) });
    }
    if (!types.has('string')) cases.push({ label: `a string as ${name}`, url, body: withRaw(name, '"100"') });
    if (!types.has('boolean') && !types.has('string')) cases.push({ label: `a boolean as ${name}`, url, body: withRaw(name, 'true') });
  }
  return cases;
}

function urlOf(operation: Operation, override?: { name: string; value: string }): string {
  let url = operation.template;
  for (const parameter of operation.parameters.filter((entry) => entry.in === 'path')) {
    const value = override?.name === parameter.name ? override.value : typesOf(parameter.schema).has('number') ? '1' : 'no-such-id';
    url = url.replace(`{${parameter.name}}`, value);
  }
  return url;
}

describe('hostile cases from the catalogue', () => {
  it('answers every one with a 4xx: no 5xx, no coercion', async () => {
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    for (const operation of operations) {
      const key = `${operation.method} ${operation.template}`;
      const headers = credentials(operation.template);
      const cases: Case[] = [];
      if (operation.hasBody) cases.push(...bodyCases(operation, urlOf(operation)));
      for (const parameter of operation.parameters) {
        if (!typesOf(parameter.schema).has('number') || typesOf(parameter.schema).has('string')) continue;
        for (const value of ['0x10', '1e1', '+1', '0b1']) {
          if (parameter.in === 'query')
            cases.push({ label: `?${parameter.name}=${value}`, url: `${urlOf(operation)}?${parameter.name}=${encodeURIComponent(value)}` });
          if (parameter.in === 'path')
            cases.push({
              label: `path ${parameter.name}=${value}`,
              url: urlOf(operation, { name: parameter.name, value: encodeURIComponent(value) }),
            });
        }
      }
      for (const entry of cases) {
        const response = await context.app.inject({
          method: operation.method as 'POST',
          url: entry.url,
          headers: { ...headers, ...(entry.body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(entry.body === undefined ? {} : { payload: entry.body }),
        });
        sent += 1;
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        // 422 is the answer under /api and 400 under /v1 (each protocol's own convention); an operator-only or
        // unknown route may answer 404 first, which is also before any handler.
        const refused = key.includes(' /v1/') ? 400 : 422;
        if (response.statusCode !== refused && response.statusCode !== 404)
          problems.push(`${key} with ${entry.label}: ${response.statusCode} ${response.body.slice(0, 200)}`);
      }
    }
    const histogram = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`);
    console.info(`hostile cases: ${sent} requests over ${operations.length} operations: ${histogram.join(' ')}`);
    expect(problems).toEqual([]);
    expect((statuses.get(422) ?? 0) + (statuses.get(400) ?? 0)).toBeGreaterThan(sent * 0.9);
  }, 300_000);
});
