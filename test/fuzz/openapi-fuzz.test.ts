/**
 * OpenAPI fuzzing: every operation of /openapi.json receives fast-check generated requests (10,000+ in all,
 * through `app.inject`) and the service must answer each without a 5xx, with an `x-request-id`, and with every
 * 4xx body in the documented shape of its protocol (/api: `{detail, code, request_id}`; /v1: OpenAI's
 * `{error:{message,type}}`; /v1/messages*: Anthropic's `{type:"error",error:{type,message}}`).
 *
 * Limited routes (valid credentials send only requests rejected before the handler runs: a body that is a JSON
 * array instead of an object, or an out-of-range query; otherwise no or garbage credentials), because their
 * handlers start a real app-server process (seconds each, and it needs this service listening on a real port)
 * or open an event stream that never ends:
 *   - app-server: GET /api/models, GET/POST /api/threads, POST /api/threads/{id}/resume, POST /api/turns,
 *     POST /api/turns/{id}/interrupt, POST /api/projects/open, POST /api/rpc, GET /api/core/releases/current,
 *     POST /api/v1/projects/{id}/open|turns, POST /api/v1/projects/{id}/turns/{id}/interrupt, GET
 *     /api/v1/agent/status, GET /api/v1/skills, the approvals routes of both surfaces.
 *   - event streams: GET /api/events, GET /api/rpc/events, GET /api/v1/projects/{id}/events,
 *     GET /api/v1/desktop-chat/shoutbox/events, GET /api/v1/assistant-desktop/push/events.
 * On those routes path ids are never real ones, so lookups fail before any process starts.
 * GET /api/v1/permissions starts the caller's app-server once and answers from it; it stays fully fuzzed (quick).
 * Nothing is skipped entirely.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, operatorHeaders, STATIC_TOKEN, type TestContext } from '../helpers/context.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { operationsOf, requestArbitrary, type FuzzRequest, type Operation, type RouteLimit, type Seeds } from './request-arbitrary.js';

const TOTAL_REQUESTS = 10_000;
const MODELS = ['gpt-test', 'claude-test'];

const LIMITED: Record<string, RouteLimit> = {
  'GET /api/models': { invalidQuery: { include_hidden: 'maybe' } },
  'GET /api/threads': { invalidQuery: { limit: '0' } },
  'POST /api/threads': { wrongBody: true },
  'POST /api/threads/{thread_id}/resume': { wrongBody: true },
  'POST /api/turns': { wrongBody: true },
  'POST /api/turns/{turn_id}/interrupt': { invalidQuery: { thread_id: '' } },
  'POST /api/projects/open': { wrongBody: true },
  'POST /api/rpc': {},
  'GET /api/core/releases/current': {},
  'POST /api/v1/projects/{projectId}/open': { wrongBody: true },
  'POST /api/v1/projects/{projectId}/turns': { wrongBody: true },
  'POST /api/v1/projects/{projectId}/turns/{turnId}/interrupt': {},
  'GET /api/v1/agent/status': {},
  'GET /api/v1/skills': {},
  'GET /api/v1/projects/{projectId}/approvals': { invalidQuery: { status: 'nope' } },
  'POST /api/v1/projects/{projectId}/approvals/{requestId}/resolve': { wrongBody: true },
  'GET /api/threads/{thread_id}/approvals': { invalidQuery: { status: 'nope' } },
  'POST /api/threads/{thread_id}/approvals/{request_id}/resolve': { wrongBody: true },
  'GET /api/events': { invalidQuery: { after: '-1' } },
  'GET /api/rpc/events': { invalidQuery: { after: '-1' } },
  'GET /api/v1/projects/{projectId}/events': { invalidQuery: { after: '-1' } },
  'GET /api/v1/desktop-chat/shoutbox/events': { invalidQuery: { after_id: '-1' } },
  'GET /api/v1/assistant-desktop/push/events': { invalidQuery: { after_id: '-1' } },
};

const chat = { model: 'power-ai', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 16 };
const message = { model: MODELS[1], max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] };
const responses = { model: MODELS[0], input: 'Hello', max_output_tokens: 16 };
const SEEDS: Record<string, Seeds> = {
  'POST /v1/chat/completions': { bodies: [chat, { ...chat, stream: true }, { ...chat, store: true }] },
  'POST /v1/completions': { bodies: [{ model: MODELS[0], prompt: 'Hello', max_tokens: 16 }] },
  'POST /v1/responses': { bodies: [responses, { ...responses, stream: true }, { ...responses, store: true }] },
  'POST /v1/responses/compact': { bodies: [responses] },
  'POST /v1/responses/count_tokens': { bodies: [responses] },
  'POST /v1/responses/input_tokens': { bodies: [responses] },
  'POST /v1/messages': { bodies: [message, { ...message, stream: true }] },
  'POST /v1/messages/count_tokens': { bodies: [message] },
  'POST /v1/messages/{*}': { bodies: [message] },
  'POST /api/v1/me/api-keys': {
    bodies: [
      { name: 'fuzz key' },
      { name: 'limited', allowed_surfaces: ['gateway'], allowed_models: [MODELS[0]], spending_limit_micros: 1_000 },
    ],
  },
  'POST /api/admin/customers': { bodies: [{ email: 'fuzz-admin@example.com', password: 'a long enough password', name: 'Fuzz' }] },
  'POST /api/v1/customer/register': { bodies: [{ email: 'fuzz-register@example.com', password: 'a long enough password' }] },
  'POST /api/v1/auth/login': { bodies: [{ email: 'fuzz-register@example.com', password: 'a long enough password' }] },
  'PUT /api/v1/projects/{projectId}/files/content': { bodies: [{ path: 'notes.txt', content: 'hello', encoding: 'utf8' }] },
  'GET /api/v1/projects/{projectId}/files/content': { query: { path: 'notes.txt' } },
  'GET /api/v1/projects/{projectId}/files/tree': { query: { path: '.' } },
  'PUT /api/admin/aliases/{alias}': { bodies: [{ model: MODELS[0] }] },
  'POST /api/admin/customers/{customer_id}/wallet/adjust': { bodies: [{ amount_micros: 1_000, reason: 'fuzz', wallet: 'token' }] },
};

interface Caller {
  token: string;
  ids: string[];
}

let upstream: ModelUpstream;
let context: TestContext;
let operations: Operation[];
let sent = 0;
const statuses = new Map<number, number>();
/** 502/503/504 the contract tolerates for /v1; the scripted upstream is healthy, so none are expected. */
const upstreamFailures: string[] = [];

beforeAll(async () => {
  upstream = await startModelUpstream();
  const capabilities = { tools: true, images: true };
  context = await createTestContext({
    config: {
      // Registration open, so the fuzzed sign-up and the login after it reach their handlers' success paths.
      accounts: { registration: 'open' },
      providers: [
        { id: 'openai-fake', kind: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-upstream-openai' },
        { id: 'anthropic-fake', kind: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-upstream-anthropic' },
      ],
      models: [
        {
          id: MODELS[0],
          provider: 'openai-fake',
          upstreamModel: 'upstream-gpt',
          capabilities: { ...capabilities, responsesApi: true },
          rateCard: 'standard',
        },
        { id: MODELS[1], provider: 'anthropic-fake', upstreamModel: 'upstream-claude', capabilities, rateCard: 'standard' },
      ],
      aliases: { 'power-ai': MODELS[0] },
    } as never,
  });
  const catalogue = await context.app.inject({ method: 'GET', url: '/openapi.json', headers: operatorHeaders });
  expect(catalogue.statusCode).toBe(200);
  operations = operationsOf(catalogue.json());
}, 30_000);

afterAll(async () => {
  await context?.close();
  await upstream?.close();
});

/** A fresh funded customer per operation, so one operation's key changes (rotation, revocation) never leak. */
async function newCaller(): Promise<Caller> {
  const created = await context.services.customers.create({ email: `fuzz-${Math.random().toString(36).slice(2)}@example.com` });
  const customerId = created.customer.id;
  await context.services.billing.adjust({
    customerId,
    amountMicros: 1_000_000_000,
    reason: 'fuzz funding',
    wallet: 'token',
    idempotencyKey: `fuzz-${customerId}`,
  });
  const project = await context.app.inject({
    method: 'POST',
    url: '/api/v1/projects',
    headers: bearer(created.systemToken.key),
    payload: { name: 'fuzz' },
  });
  const projectId = project.statusCode < 300 ? String(project.json().id) : 'missing-project';
  return { token: created.systemToken.key, ids: [String(customerId), String(created.systemToken.id), projectId, '1', ...MODELS] };
}

function headersFor(request: FuzzRequest, caller: Caller): Record<string, string> {
  switch (request.auth) {
    case 'none':
      return request.headers;
    case 'garbage':
      return { ...request.headers, authorization: 'Bearer sk-not-a-real-key-0000000000' };
    case 'customer':
      return { ...request.headers, ...bearer(caller.token) };
    case 'customer-x-api-key':
      return { ...request.headers, 'x-api-key': caller.token };
    case 'operator':
      return { ...request.headers, authorization: `Bearer ${STATIC_TOKEN}` };
  }
}

function isIssueList(detail: unknown): boolean {
  return (
    Array.isArray(detail) &&
    detail.every(
      (issue) =>
        typeof issue === 'object' &&
        issue !== null &&
        Array.isArray(issue.loc) &&
        typeof issue.msg === 'string' &&
        typeof issue.type === 'string',
    )
  );
}

/** The reason a response breaks the contract, or null. */
function violation(path: string, status: number, headers: Record<string, unknown>, text: string): string | null {
  if (typeof headers['x-request-id'] !== 'string' || headers['x-request-id'] === '') return 'no x-request-id header';
  if (status >= 500) {
    const upstreamFailure =
      [502, 503, 504].includes(status) && path.startsWith('/v1/') && /^\d+$/.test(String(headers['retry-after'] ?? ''));
    return upstreamFailure ? null : `status ${status}`;
  }
  if (status < 400) return null;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return 'a 4xx body that is not JSON';
  }
  if (path.startsWith('/v1/messages')) {
    const ok = body?.type === 'error' && typeof body.error?.type === 'string' && typeof body.error?.message === 'string';
    return ok ? null : 'a 4xx body not in the Anthropic error shape';
  }
  if (path.startsWith('/v1/') || path === '/v1') {
    const ok = typeof body?.error?.message === 'string' && typeof body.error?.type === 'string';
    return ok ? null : 'a 4xx body not in the OpenAI error shape';
  }
  const ok =
    (typeof body?.detail === 'string' || isIssueList(body?.detail)) &&
    typeof body?.request_id === 'string' &&
    (body.code === undefined || typeof body.code === 'string');
  return ok ? null : 'a 4xx body not in the {detail, code, request_id} shape';
}

describe('catalogue fuzzing', () => {
  it('reads a catalogue with routes of every surface', () => {
    const templates = new Set(operations.map((operation) => operation.template));
    for (const template of ['/v1/chat/completions', '/v1/messages', '/api/v1/me/api-keys', '/api/admin/customers', '/api/v1/projects']) {
      expect(templates.has(template), template).toBe(true);
    }
  });

  it('answers every generated request without a 5xx and with documented error bodies', async () => {
    const runsPerOperation = Math.ceil(TOTAL_REQUESTS / operations.length);
    for (const operation of operations) {
      const key = `${operation.method} ${operation.template}`;
      const caller = await newCaller();
      await fc.assert(
        fc.asyncProperty(requestArbitrary(operation, caller.ids, SEEDS[key], LIMITED[key]), async (request) => {
          const response = await context.app.inject({
            method: request.method as 'GET',
            url: request.url,
            headers: headersFor(request, caller),
            payload: request.body,
          });
          sent += 1;
          if (response.statusCode >= 500) upstreamFailures.push(`${response.statusCode} ${JSON.stringify(request).slice(0, 300)}`);
          statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
          // The path as the server sees it: dot segments are resolved before routing.
          const path = new URL(request.url, 'http://fuzz.invalid').pathname;
          const problem = violation(path, response.statusCode, response.headers, response.body);
          if (problem) throw new Error(`${key}: ${problem}\nresponse ${response.statusCode}: ${response.body.slice(0, 500)}`);
        }),
        { numRuns: runsPerOperation, endOnFailure: false },
      );
    }
    const histogram = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`);
    console.info(`catalogue fuzzing: ${sent} requests over ${operations.length} operations: ${histogram.join(' ')}`);
    expect(sent).toBeGreaterThanOrEqual(TOTAL_REQUESTS);
    expect(upstreamFailures).toEqual([]);
    // Generated requests reach handlers too, not only the validators.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(500);
    expect([...statuses.keys()].filter((status) => status >= 400 && status < 500).length).toBeGreaterThan(4);
  }, 300_000);
});
