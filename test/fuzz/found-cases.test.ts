/** Requests the catalogue fuzzing once answered with a 5xx or an undocumented body, kept as fixed cases. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { credit } from '../billing/helpers.js';

let upstream: ModelUpstream;
let context: TestContext;
let customerHeaders: { authorization: string };

beforeAll(async () => {
  upstream = await startModelUpstream();
  context = await createTestContext({
    config: {
      providers: [{ id: 'anthropic-fake', kind: 'anthropic', baseUrl: upstream.url }],
      models: [{ id: 'claude-test', provider: 'anthropic-fake', upstreamModel: 'upstream-claude' }],
    } as never,
  });
  const created = await context.services.customers.create({ email: `found-${Math.random().toString(36).slice(2)}@example.com` });
  customerHeaders = bearer(created.systemToken.key);
  await credit(context, created.customer.id, 5_000_000);
});

afterAll(async () => {
  await context?.close();
  await upstream?.close();
});

describe('requests the fuzzing found', () => {
  it('answers a malformed percent-encoding in the path with a request id and the /api error shape', async () => {
    const response = await context.app.inject({
      method: 'PATCH',
      url: '/api/v1/me/api-keys/%C0%AE',
      headers: customerHeaders,
      payload: {},
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['x-request-id']).toMatch(/^req_/);
    expect(response.json()).toEqual({ detail: expect.any(String), code: 'BAD_REQUEST', request_id: response.headers['x-request-id'] });
  });

  it('answers a malformed percent-encoding under /v1 in the OpenAI error shape', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/v1/chat/completions/%E0%A4%A', headers: customerHeaders });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ message: expect.any(String), type: 'invalid_request_error' });
  });

  it.each([
    ['limit=Infinity', 'limit'],
    ['limit=1e400', 'limit'],
    ['after_id=99999999999999999999999999', 'after_id'],
  ])('rejects the unusable number in %s with a 422 naming the parameter', async (query, name) => {
    const response = await context.app.inject({ method: 'GET', url: `/api/admin/customers?${query}`, headers: operatorHeaders });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([expect.objectContaining({ loc: ['query', name] })]);
  });

  it('rejects a body integer past 2^53 with a 422 naming the field, and issues no key', async () => {
    const before = await context.storage.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/admin/keys',
      headers: { ...operatorHeaders, 'content-type': 'application/json' },
      payload: '{"customer_id":100000000000000000000}',
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([expect.objectContaining({ loc: ['body', 'customer_id'] })]);
    const after = await context.storage.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    expect(Number(after.count)).toBe(Number(before.count));
  });

  it('rejects a NUL character in a body string with a 422 naming the field, and creates no project', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: customerHeaders,
      payload: { name: 'a\u0000b' },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'string_nul' })]);
    const projects = await context.app.inject({ method: 'GET', url: '/api/v1/projects', headers: customerHeaders });
    expect(projects.json().data ?? projects.json()).toHaveLength(0);
  });

  it('rejects a NUL character in a query value instead of failing in the database', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/v1/chat/completions?after=%00', headers: customerHeaders });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ type: 'invalid_request_error', param: 'after' });
  });

  it('looks a model id containing a percent sign up once: a 404, not a 500', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/v1/models/%25', headers: customerHeaders });
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toMatchObject({ message: expect.stringContaining('%'), type: 'invalid_request_error' });
  });

  it('answers a non-ASCII /v1/messages/* subpath 404 without reaching the upstream', async () => {
    const before = upstream.requests.length;
    const response = await context.app.inject({
      method: 'POST',
      url: '/v1/messages/%EA%85%82/b%20c',
      headers: customerHeaders,
      payload: { model: 'claude-test', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] },
    });
    expect(response.statusCode).toBe(404);
    expect(upstream.requests.length).toBe(before);
  });

  it('names unknown fields that are not visible ASCII percent-encoded in the dropped-fields header, instead of a 500', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...customerHeaders, 'content-type': 'application/json' },
      payload: '{"\u0100":"","a,b":1,"":[],"model":"claude-test","messages":[{"role":"user","content":"Hello"}],"max_tokens":16}',
    });
    expect(response.statusCode, response.body).toBe(200);
    const named = String(response.headers['x-switchyard-dropped-fields']).split(', ');
    expect(named).toEqual(expect.arrayContaining(['%C4%80', 'a%2Cb', '""']));
  });
});
