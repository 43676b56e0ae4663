/**
 * The cross-tenant matrix, generated from the OpenAPI catalogue: every operation that takes an id (in its path,
 * or a thread id in its query or body) is called by customer A with customer B's real ids, and must answer
 * exactly like a missing id — 404 — or an empty list where the route lists. Operations added later are covered
 * without editing this file; an id parameter this file cannot fill fails the test until it is taught the kind.
 * B's ids exist in the database the way the service records them: a project, a project thread, a direct
 * thread, an approval, API keys, a stored chat completion and a stored response.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { operationsOf, type Operation } from '../fuzz/request-arbitrary.js';

interface Tenant {
  id: number;
  headers: { authorization: string };
  keyId: number;
  projectId: string;
  directThreadId: string;
  projectThreadId: string;
  approvalId: string;
  turnId: string;
  completionId: string;
  responseId: string;
  alertId: number;
  messageId: number;
  orderId: string;
  addressId: string;
  pushMessageKey: string;
  conversationId: number;
  coderProjectName: string;
  researchMessageId: number;
  objectProjectId: string;
}

let upstream: ModelUpstream;
let context: TestContext;
let operations: Operation[];
let alice: Tenant;
let bob: Tenant;

/** The scripted upstream names every response alike, so only one tenant stores one (B, whose id A then uses). */
async function tenant(name: string, storeResponse: boolean): Promise<Tenant> {
  const created = await context.services.customers.create({ email: `${name}-${Math.random().toString(36).slice(2)}@example.com` });
  const id = created.customer.id;
  const headers = bearer(created.systemToken.key);
  await context.services.billing.adjust({
    customerId: id,
    amountMicros: 100_000_000,
    reason: 'funding',
    wallet: 'token',
    idempotencyKey: `matrix-${id}`,
  });
  const project = await context.services.projects.create(id, `${name} project`);
  const now = Date.now();
  const tag = `${name}-${id}`;
  const db = context.storage.db;
  await db
    .insertInto('agent_project_threads')
    .values({ project_id: project.id, customer_id: id, thread_id: `thr-project-${tag}`, created_at: now, updated_at: now })
    .execute();
  await db
    .insertInto('direct_threads')
    .values({ thread_id: `thr-direct-${tag}`, customer_id: id, cwd: project.workspaceDir, created_at: now })
    .execute();
  const approval = {
    customer_id: id,
    turn_id: `turn-${tag}`,
    item_id: `item-${tag}`,
    kind: 'commandExecution',
    server_request_id: '1',
    params_json: '{}',
    status: 'pending' as const,
    decision: null,
    created_at: now,
    expires_at: now + 3_600_000,
    finished_at: null,
  };
  await db
    .insertInto('agent_approvals')
    .values({ ...approval, id: `apr-project-${tag}`, project_id: project.id, thread_id: `thr-project-${tag}` })
    .execute();
  await context.services.direct.stream(id);
  await db
    .insertInto('agent_approvals')
    .values({ ...approval, id: `apr-direct-${tag}`, project_id: `direct-${id}`, thread_id: `thr-direct-${tag}`, server_request_id: '2' })
    .execute();
  const key = await context.app.inject({ method: 'POST', url: '/api/v1/me/api-keys', headers, payload: { name: 'matrix' } });
  expect(key.statusCode).toBe(201);
  const completion = await context.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers,
    payload: { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], store: true },
  });
  expect(completion.statusCode, completion.body).toBe(200);
  const response = storeResponse
    ? await context.app.inject({ method: 'POST', url: '/v1/responses', headers, payload: { model: 'gpt-test', input: 'hi', store: true } })
    : null;
  if (response) expect(response.statusCode, response.body).toBe(200);
  // An alert, an inbox message, a paid crypto order and a refund address of the tenant's own.
  await context.services.accounts.alerts.raise(id, { cause: 'key_revoked', causeKey: `matrix-${tag}`, keyId: key.json().id });
  const alert = await db.selectFrom('account_alerts').select('id').where('customer_id', '=', id).executeTakeFirstOrThrow();
  const message = await context.services.accounts.inbox.post({ customerId: id, title: 'hello', body: 'matrix' });
  const order = {
    public_id: `ord-${tag}`,
    customer_id: id,
    method: 'crypto' as const,
    wallet: 'token' as const,
    pack_id: null,
    amount_micros: 1_000_000,
    credit_micros: 1_000_000,
    status: 'paid' as const,
    processor_ref: `inv-${tag}`,
    payment_intent: null,
    refunded_micros: 0,
    clawed_micros: 0,
    debt_micros: 0,
    details_json: null,
    credited_at: now,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('payments').values(order).execute();
  await db
    .insertInto('crypto_refund_addresses')
    .values({
      address_id: `adr-${tag}`,
      customer_id: id,
      network: 'eth',
      address: '0x0000000000000000000000000000000000000000',
      label: null,
      created_at: now,
    })
    .execute();
  const push = await context.app.inject({
    method: 'POST',
    url: '/api/admin/push',
    headers: operatorHeaders,
    payload: { message_key: `push-${tag}`, customer_id: id, title: 'matrix', body: 'matrix' },
  });
  expect(push.statusCode, push.body).toBe(201);
  const conversation = await context.app.inject({
    method: 'POST',
    url: '/api/v1/desktop-chat/conversations',
    headers,
    payload: { title: 'matrix', model: 'gpt-test' },
  });
  expect(conversation.statusCode, conversation.body).toBe(201);
  const coder = await context.app.inject({
    method: 'POST',
    url: '/api/v1/desktop/coder/projects',
    headers,
    payload: { name: `${name}-coder` },
  });
  expect(coder.statusCode, coder.body).toBe(201);
  // A completed research analysis with its reply message, as the desktop chat stores one.
  const reply = await db
    .insertInto('desktop_chat_messages')
    .values({
      conversation_id: conversation.json().id,
      customer_id: id,
      role: 'assistant',
      content: 'report',
      model: 'gpt-test',
      request_id: null,
      input_tokens: null,
      output_tokens: null,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('desktop_chat_research')
    .values({
      message_id: Number(reply.id),
      conversation_id: conversation.json().id,
      customer_id: id,
      status: 'completed',
      prompt: 'matrix',
      title: 'matrix',
      sections_json: '[]',
      sources_json: '[]',
      error: null,
      calls: 1,
      created_at: now,
      updated_at: now,
      completed_at: now,
    })
    .execute();
  const objectProject = await context.app.inject({
    method: 'POST',
    url: '/api/v1/assistant-desktop/object-workspace/projects',
    headers,
    payload: { name: 'matrix' },
  });
  expect(objectProject.statusCode, objectProject.body).toBe(201);
  return {
    id,
    headers,
    alertId: Number(alert.id),
    messageId: message.id,
    orderId: order.public_id,
    addressId: `adr-${tag}`,
    keyId: key.json().id,
    projectId: project.id,
    directThreadId: `thr-direct-${tag}`,
    projectThreadId: `thr-project-${tag}`,
    approvalId: `apr-direct-${tag}`,
    turnId: `turn-${tag}`,
    completionId: completion.json().id,
    responseId: response?.json().id ?? 'resp_none',
    pushMessageKey: `push-${tag}`,
    conversationId: conversation.json().id,
    coderProjectName: `${name}-coder`,
    researchMessageId: Number(reply.id),
    objectProjectId: objectProject.json().project_id,
  };
}

/** The values of one id kind a tenant owns (several where one parameter can name several kinds of thing). */
function idsOf(owner: Tenant, name: string, template: string): string[] | undefined {
  switch (name) {
    case 'projectId':
      return [owner.projectId];
    case 'thread_id':
    case 'threadId':
      return [owner.directThreadId, owner.projectThreadId];
    case 'turn_id':
    case 'turnId':
      return [owner.turnId];
    case 'request_id':
      return [owner.approvalId];
    case 'requestId':
      return [`apr-project-${owner.projectThreadId.slice('thr-project-'.length)}`];
    case 'key_id':
      return [String(owner.keyId)];
    case 'customer_id':
      return [String(owner.id)];
    case 'completion_id':
      return [owner.completionId];
    case 'response_id':
      return [owner.responseId];
    case 'event_id':
      return [String(owner.alertId)];
    case 'message_id':
      // Desktop chat messages (a research reply) and inbox messages share the parameter name.
      return template.startsWith('/api/v1/desktop-chat/')
        ? [String(owner.researchMessageId), String(owner.messageId)]
        : [String(owner.messageId)];
    case 'order_id':
      return [owner.orderId];
    case 'address_id':
      return [owner.addressId];
    case 'referral_code':
      // A public share link: a referral code is meant to be given away and names nothing private.
      return template.startsWith('/r/') ? [] : undefined;
    case 'message_key':
      return [owner.pushMessageKey];
    case 'conversation_id':
      return [String(owner.conversationId)];
    case 'project_name':
      return [owner.coderProjectName];
    case 'project_id':
      return template.startsWith('/api/v1/assistant-desktop/object-workspace/') ? [owner.objectProjectId] : undefined;
    case 'repository_name':
      // A folder name in the caller's own workspace: naming B's repository stores A's own copy, it reads nothing of B's.
      return template.startsWith('/api/v1/assistant-desktop/object-workspace/repositories/') ? [] : undefined;
    case 'alias':
      // Operator-only routes: any value; a customer must get the 404 of an unknown route.
      return template.startsWith('/api/admin/') ? ['power-ai'] : undefined;
    default:
      return undefined;
  }
}

/** Query and body fields that name a thread (the direct surface takes the thread id there). */
const THREAD_FIELDS = ['thread_id', 'threadId'];

/** Minimal bodies that pass validation, so the ownership check is what answers. */
const BODIES: Record<string, Record<string, unknown>> = {
  'POST /api/turns': { input: 'hello' },
  'POST /api/v1/desktop-chat/conversations/{conversation_id}/messages': { content: 'hello' },
  'POST /api/v1/projects/{projectId}/turns': { input: 'hello' },
  'PUT /api/v1/projects/{projectId}/files/content': { path: 'notes.txt', content: 'x' },
  'PATCH /api/v1/projects/{projectId}': { name: 'renamed' },
  'PUT /api/admin/aliases/{alias}': { model: 'gpt-test' },
  'POST /api/admin/customers/{customer_id}/wallet/adjust': { amount_micros: 1, reason: 'matrix' },
  'POST /api/admin/customers/{customer_id}/unlimited-plan': { plan_id: 'x' },
  'PATCH /api/v1/me/api-keys/{key_id}': { name: 'renamed' },
  'PATCH /api/admin/keys/{key_id}': { name: 'renamed' },
  'POST /api/v1/me/api-keys/{key_id}/replace': {},
  'POST /v1/chat/completions/{completion_id}': { metadata: { k: 'v' } },
  'PATCH /v1/chat/completions/{completion_id}': { metadata: { k: 'v' } },
};
const QUERIES: Record<string, Record<string, string>> = {
  'GET /api/v1/projects/{projectId}/files/content': { path: 'notes.txt' },
  'DELETE /api/v1/projects/{projectId}/files/content': { path: 'notes.txt' },
  'GET /api/v1/projects/{projectId}/files/download': { path: 'notes.txt' },
};

interface Call {
  label: string;
  method: string;
  url: string;
  payload?: Record<string, unknown>;
}

function product(lists: [string, string[]][]): Record<string, string>[] {
  return lists.reduce<Record<string, string>[]>(
    (combos, [name, values]) => combos.flatMap((combo) => values.map((value) => ({ ...combo, [name]: value }))),
    [{}],
  );
}

/** Every call of the matrix: each id parameter filled with each of B's ids of its kind. */
function callsFor(operation: Operation, owner: Tenant): Call[] | string {
  const key = `${operation.method} ${operation.template}`;
  const pathNames = operation.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
  const queryThread = operation.parameters.find((parameter) => parameter.in === 'query' && THREAD_FIELDS.includes(parameter.name));
  const bodyThread = Object.keys((operation.bodySchema as { properties?: object } | undefined)?.properties ?? {}).find((name) =>
    THREAD_FIELDS.includes(name),
  );
  if (pathNames.length === 0 && !queryThread && !bodyThread) return [];
  if (operation.template.includes('{*}') || pathNames.includes('*')) return [];
  const lists: [string, string[]][] = [];
  for (const name of pathNames) {
    const ids = idsOf(owner, name, operation.template);
    if (!ids) return `no ${owner === bob ? "other customer's" : ''} id for path parameter ${name} of ${key}`;
    lists.push([name, ids]);
  }
  if (queryThread) lists.push([`?${queryThread.name}`, idsOf(owner, queryThread.name, operation.template)!]);
  if (bodyThread) lists.push([`.${bodyThread}`, idsOf(owner, bodyThread, operation.template)!]);
  return product(lists).map((combo) => {
    let url = operation.template;
    const query = new URLSearchParams(QUERIES[key] ?? {});
    const payload: Record<string, unknown> | undefined = operation.hasBody ? { ...(BODIES[key] ?? {}) } : undefined;
    for (const [name, value] of Object.entries(combo)) {
      if (name.startsWith('?')) query.set(name.slice(1), value);
      else if (name.startsWith('.')) payload![name.slice(1)] = value;
      else url = url.replace(`{${name}}`, encodeURIComponent(value));
    }
    const text = query.toString();
    return { label: `${key} ${JSON.stringify(combo)}`, method: operation.method, url: text ? `${url}?${text}` : url, payload };
  });
}

beforeAll(async () => {
  upstream = await startModelUpstream();
  context = await createTestContext({
    config: {
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
      aliases: { 'power-ai': 'gpt-test' },
    } as never,
  });
  const catalogue = await context.app.inject({ method: 'GET', url: '/openapi.json', headers: operatorHeaders });
  operations = operationsOf(catalogue.json());
  alice = await tenant('alice', false);
  bob = await tenant('bob', true);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await upstream?.close();
});

const isEmptyList = (body: any) => Array.isArray(body?.data) && body.data.length === 0;

describe('cross-tenant matrix from the OpenAPI catalogue', () => {
  it("answers another customer's ids on every id-taking route like missing ones", async () => {
    const problems: string[] = [];
    let calls = 0;
    for (const operation of operations) {
      const generated = callsFor(operation, bob);
      if (typeof generated === 'string') {
        problems.push(generated);
        continue;
      }
      for (const call of generated) {
        calls += 1;
        const response = await context.app.inject({
          method: call.method as 'GET',
          url: call.url,
          headers: alice.headers,
          ...(call.payload ? { payload: call.payload } : {}),
        });
        const ok =
          response.statusCode === 404 || (response.statusCode === 200 && operation.method === 'GET' && isEmptyList(response.json()));
        if (!ok) problems.push(`${call.label}: ${response.statusCode} ${response.body.slice(0, 200)}`);
        // Nothing of B's may show in the answer, whatever its status.
        for (const secret of [bob.projectId, bob.directThreadId, bob.projectThreadId, bob.approvalId]) {
          if (response.statusCode !== 404 && response.body.includes(secret)) problems.push(`${call.label}: the answer names ${secret}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(calls).toBeGreaterThan(30);
  }, 120_000);

  it("answers another customer's approval id under the caller's own thread or project with a 404", async () => {
    const direct = await context.app.inject({
      method: 'POST',
      url: `/api/threads/${alice.directThreadId}/approvals/${bob.approvalId}/resolve`,
      headers: alice.headers,
      payload: {},
    });
    expect(direct.statusCode).toBe(404);
    const project = await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${alice.projectId}/approvals/apr-project-bob-${bob.id}/resolve`,
      headers: alice.headers,
      payload: {},
    });
    expect(project.statusCode).toBe(404);
    const pending = await context.app.inject({
      method: 'GET',
      url: `/api/threads/${alice.directThreadId}/approvals`,
      headers: alice.headers,
    });
    expect(pending.statusCode).toBe(200);
    expect(pending.json().data.map((approval: { request_id: string }) => approval.request_id)).toEqual([alice.approvalId]);
  });

  it('answers approvals of an unknown thread with a 404, not an empty list', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/threads/thr-never-existed/approvals', headers: alice.headers });
    expect(response.statusCode).toBe(404);
  });

  it("keeps the caller's own ids working (the matrix is not 404 for everyone)", async () => {
    const project = await context.app.inject({ method: 'GET', url: `/api/v1/projects/${alice.projectId}`, headers: alice.headers });
    expect(project.statusCode).toBe(200);
    const completion = await context.app.inject({
      method: 'GET',
      url: `/v1/chat/completions/${alice.completionId}`,
      headers: alice.headers,
    });
    expect(completion.statusCode).toBe(200);
    const key = await context.app.inject({ method: 'GET', url: `/api/v1/me/api-keys/${alice.keyId}/usage`, headers: alice.headers });
    expect(key.statusCode).toBe(200);
  });
});
