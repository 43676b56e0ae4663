/**
 * The response contract, applied: every route named in a catalog gets its 2xx schemas at registration, so
 * `/openapi.json` documents them. The schemas describe answers; they never reshape one (a catalog schema is not
 * compiled into a serializer: the answer is sent as the handler built it).
 *
 * With `SWITCHYARD_CONTRACT_CHECK=1` (the test suite sets it) every 2xx JSON answer of a route with a schema is
 * checked against it before it leaves; an answer that does not match is replaced by a 500 naming the route, the
 * path in the answer and what was expected, so the test that made the call fails where the contract broke.
 */
import { FormatRegistry, Kind, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { App } from '../types.js';
import { accountResponses } from './account.js';
import { adminResponses } from './admin.js';
import type { ResponseCatalog } from './catalog.js';
import { platformResponses } from './platform.js';
import { workspaceResponses } from './workspace.js';

/** Every area's catalog; a route appears in at most one. */
const CATALOGS: readonly ResponseCatalog[] = [platformResponses, workspaceResponses, accountResponses, adminResponses];

export const CONTRACT_CHECK_ENV = 'SWITCHYARD_CONTRACT_CHECK';

/** The string formats the schemas use, checked as JSON Schema means them (TypeBox knows none by itself). */
const FORMATS: Record<string, (value: string) => boolean> = {
  'date-time': (value) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(value) && !Number.isNaN(Date.parse(value)),
  date: (value) => /^\d{4}-\d\d-\d\d$/.test(value) && !Number.isNaN(Date.parse(value)),
  email: (value) => /^[^\s@]+@[^\s@]+$/.test(value),
  uri: (value) => URL.canParse(value),
  binary: () => true,
};
for (const [name, check] of Object.entries(FORMATS)) if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);

/** `METHOD /url` → status → schema, from every catalog; a key found twice is a mistake caught at start. */
export function responseCatalog(catalogs: readonly ResponseCatalog[] = CATALOGS): Map<string, Partial<Record<number, TSchema>>> {
  const joined = new Map<string, Partial<Record<number, TSchema>>>();
  for (const catalog of catalogs)
    for (const [key, statuses] of Object.entries(catalog)) {
      if (joined.has(key)) throw new Error(`response contract: ${key} is declared twice`);
      joined.set(key, statuses);
    }
  return joined;
}

const sendAsBuilt = () => (data: unknown) => JSON.stringify(data);

interface Checked {
  route: string;
  checks: Map<number, TypeCheck<TSchema>>;
}

/** The first mismatch of `value` against `check`, in words (path, expected, found). */
function mismatch(check: TypeCheck<TSchema>, value: unknown): string | undefined {
  if (check.Check(value)) return undefined;
  const first = check.Errors(value).First();
  if (!first) return 'does not match';
  const found = first.value === undefined ? 'nothing' : JSON.stringify(first.value)?.slice(0, 120);
  return `at ${first.path || '/'}: ${first.message} (found ${found})`;
}

function checkHook(checked: Checked) {
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => {
    const check = checked.checks.get(reply.statusCode);
    const type = String(reply.getHeader('content-type') ?? '');
    // JSON and `+json` types only: JSON lines (`application/x-ndjson`) are a stream of documents, not one.
    if (!check || typeof payload !== 'string' || !/^application\/(?:[\w.-]+\+)?json\b/.test(type)) return done(null, payload);
    let problem: string | undefined;
    try {
      problem = mismatch(check, JSON.parse(payload));
    } catch {
      problem = 'the answer is not JSON';
    }
    if (problem === undefined) return done(null, payload);
    const detail = `response contract: ${checked.route} answered ${reply.statusCode} off its schema ${problem}`;
    request.log.error({ route: checked.route }, detail);
    reply.code(500);
    done(null, JSON.stringify({ detail }));
  };
}

/** Hands each route its catalog schemas as it registers; with `check`, also checks every answer against them. */
export function applyResponseContract(app: App, options: { check: boolean; catalogs?: readonly ResponseCatalog[] }): void {
  const catalog = responseCatalog(options.catalogs);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((method) => method !== 'HEAD');
    const key = methods.map((method) => `${method} ${route.url}`).find((candidate) => catalog.has(candidate));
    const declared = key === undefined ? undefined : catalog.get(key);
    const own = (route.schema as { response?: Record<number, TSchema> } | undefined)?.response;
    if (declared) {
      route.schema = { ...route.schema, response: { ...declared, ...own } };
      if (!own) route.serializerCompiler = sendAsBuilt;
    }
    const response = (route.schema as { response?: Record<string, TSchema> } | undefined)?.response;
    if (!options.check || !response) return;
    const checks = new Map<number, TypeCheck<TSchema>>();
    for (const [status, schema] of Object.entries(response))
      if (/^2\d\d$/.test(status) && schema && typeof schema === 'object' && Kind in schema)
        checks.set(Number(status), TypeCompiler.Compile(schema));
    if (checks.size === 0) return;
    const hook = checkHook({ route: `${methods.join(',')} ${route.url}`, checks });
    const existing = route.onSend;
    route.onSend = [...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]), hook];
  });
}
