/**
 * Hostile input on every surface: no type coercion of bodies, decimal-only query integers, a JSON depth limit at
 * parse, lone surrogates, and numbers past ±2^53. Each is a 4xx in the caller's protocol and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';

let upstream: ModelUpstream;
let context: TestContext;
let customerId: number;
let headers: { authorization: string };
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  upstream = await startModelUpstream();
  context = await createTestContext({
    config: {
      providers: [
        { id: 'openai-fake', kind: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-upstream-openai' },
        { id: 'anthropic-fake', kind: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-upstream-anthropic' },
      ],
      models: [
        {
          id: 'gpt-test',
          provider: 'openai-fake',
          upstreamModel: 'upstream-gpt',
          capabilities: { tools: true, responsesApi: true },
          rateCard: 'standard',
        },
        {
          id: 'claude-test',
          provider: 'anthropic-fake',
          upstreamModel: 'upstream-claude',
          capabilities: { tools: true },
          rateCard: 'standard',
        },
      ],
    } as never,
  });
  const created = await context.services.customers.create({ email: `hostile-${Math.random().toString(36).slice(2)}@example.com` });
  customerId = created.customer.id;
  headers = bearer(created.systemToken.key);
  await context.services.billing.adjust({
    customerId,
    amountMicros: 1_000_000,
    reason: 'funding',
    wallet: 'token',
    idempotencyKey: `hostile-${customerId}`,
  });
});

afterAll(async () => {
  await context?.close();
  await upstream?.close();
});

const projectCount = async () => {
  const listed = await context.app.inject({ method: 'GET', url: '/api/v1/projects', headers });
  return (listed.json().data ?? listed.json()).length as number;
};

function nested(depth: number, leaf = '1'): string {
  return '['.repeat(depth) + leaf + ']'.repeat(depth);
}

describe('no type coercion of bodies', () => {
  it.each([
    ['a number past 2^53', '{"name": 9007199254740993}'],
    ['a number past the float range', '{"name": 1e400}'],
    ['a plain number', '{"name": 12}'],
    ['a boolean', '{"name": true}'],
    ['an array', '{"name": ["a"]}'],
  ])('refuses %s where a string is expected and creates nothing', async (_label, payload) => {
    const before = await projectCount();
    const response = await context.app.inject({ method: 'POST', url: '/api/v1/projects', headers: { ...headers, ...json }, payload });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([expect.objectContaining({ loc: ['body', 'name'] })]);
    expect(await projectCount()).toBe(before);
  });

  it('refuses a money amount sent as a string and credits nothing', async () => {
    const balance = async () => (await context.app.inject({ method: 'GET', url: '/api/v1/wallet/status', headers })).body;
    const before = await balance();
    for (const amount of ['"100"', '100.5', 'true', '[100]']) {
      const response = await context.app.inject({
        method: 'POST',
        url: `/api/admin/customers/${customerId}/wallet/adjust`,
        headers: { ...operatorHeaders, ...json, 'idempotency-key': `coerce-${amount}` },
        payload: `{"amount_micros": ${amount}, "reason": "coercion", "wallet": "token"}`,
      });
      expect(response.statusCode, amount).toBe(422);
      expect(response.json().detail[0].loc).toEqual(['body', 'amount_micros']);
    }
    expect(await balance()).toBe(before);
  });

  it('refuses a string where the gateway expects a number, in the OpenAI shape, before any upstream call', async () => {
    const calls = upstream.requests.length;
    const response = await context.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...headers, ...json },
      payload: { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], max_tokens: '16' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ type: 'invalid_request_error', param: 'max_tokens' });
    expect(upstream.requests.length).toBe(calls);
  });
});

describe('query and path integers', () => {
  it.each(['0x10', '1e1', '0b1', ' 16', '16 ', '+16', '1.5', '', 'Infinity'])(
    'refuses ?limit=%s with a 422 naming the parameter',
    async (value) => {
      const response = await context.app.inject({
        method: 'GET',
        url: `/api/admin/customers?limit=${encodeURIComponent(value)}`,
        headers: operatorHeaders,
      });
      expect(response.statusCode).toBe(422);
      expect(response.json().detail).toEqual([expect.objectContaining({ loc: ['query', 'limit'] })]);
    },
  );

  it('still reads decimal query integers, booleans and path integers', async () => {
    const listed = await context.app.inject({ method: 'GET', url: '/api/admin/customers?limit=1', headers: operatorHeaders });
    expect(listed.statusCode).toBe(200);
    const adjust = (id: string, key: string) =>
      context.app.inject({
        method: 'POST',
        url: `/api/admin/customers/${id}/wallet/adjust`,
        headers: { ...operatorHeaders, 'idempotency-key': key },
        payload: { amount_micros: 1, reason: 'path', wallet: 'token' },
      });
    expect((await adjust(String(customerId), 'path-decimal')).statusCode).toBeLessThan(300);
    const hex = await adjust(`0x${customerId.toString(16)}`, 'path-hex');
    expect(hex.statusCode).toBe(422);
    expect(hex.json().detail[0].loc).toEqual(['path', 'customer_id']);
  });

  it('refuses ?after=0x10 on an event stream instead of reading it as 16', async () => {
    const project = await context.app.inject({ method: 'POST', url: '/api/v1/projects', headers, payload: { name: 'events' } });
    const response = await context.app.inject({ method: 'GET', url: `/api/v1/projects/${project.json().id}/events?after=0x10`, headers });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0].loc).toEqual(['query', 'after']);
  });
});

describe('JSON depth limit', () => {
  it('accepts 64 levels and refuses 65 under /api', async () => {
    const ok = await context.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { ...headers, ...json },
      payload: `{"name":"deep","x":${nested(63)}}`,
    });
    expect(ok.statusCode).toBe(201);
    const deep = await context.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { ...headers, ...json },
      payload: `{"name":"deep","x":${nested(64)}}`,
    });
    expect(deep.statusCode).toBe(422);
    expect(deep.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [expect.objectContaining({ loc: ['body'], type: 'json_too_deep' })],
    });
  });

  it('ignores brackets inside strings', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { ...headers, ...json },
      payload: JSON.stringify({ name: `${'['.repeat(150)}"\\` }),
    });
    expect(response.statusCode).toBe(201);
  });

  it.each([
    [
      '/v1/chat/completions',
      (deep: string) =>
        `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${deep}}}]}`,
    ],
    [
      '/v1/responses',
      (deep: string) => `{"model":"gpt-test","input":"hi","text":{"format":{"type":"json_schema","name":"x","schema":${deep}}}}`,
    ],
    [
      '/v1/responses/input_tokens',
      (deep: string) => `{"model":"gpt-test","input":"hi","tools":[{"type":"function","name":"f","parameters":${deep}}]}`,
    ],
    [
      '/v1/messages',
      (deep: string) =>
        `{"model":"claude-test","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":${deep}}]}`,
    ],
    [
      '/v1/messages/count_tokens',
      (deep: string) => `{"model":"claude-test","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":${deep}}]}`,
    ],
  ])('answers JSON nested 10,000 deep on %s with a 4xx in its protocol and no upstream call', async (url, body) => {
    const calls = upstream.requests.length;
    const response = await context.app.inject({
      method: 'POST',
      url,
      headers: { ...headers, ...json },
      payload: body(nested(10_000, '{}')),
    });
    // /v1 answers validation errors in each protocol's own convention: 400 invalid_request_error.
    expect(response.statusCode).toBe(400);
    if (url.startsWith('/v1/messages')) expect(response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    else expect(response.json().error).toMatchObject({ type: 'invalid_request_error' });
    expect(upstream.requests.length).toBe(calls);
  });

  it('refuses deep JSON with an Idempotency-Key before canonicalization', async () => {
    const project = await context.app.inject({ method: 'POST', url: '/api/v1/projects', headers, payload: { name: 'idem' } });
    const response = await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${project.json().id}/turns`,
      headers: { ...headers, ...json, 'idempotency-key': 'deep-1' },
      payload: `{"input":${nested(10_000, '"x"')}}`,
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0].type).toBe('json_too_deep');
  });
});

describe('lone surrogates', () => {
  it.each([
    ['a lone high surrogate', '{"name": "a\\ud800b"}', ['body', 'name']],
    ['a lone low surrogate', '{"name": "\\udc00"}', ['body', 'name']],
    ['a reversed pair', '{"name": "\\ude00\\ud83d"}', ['body', 'name']],
    ['a lone surrogate in a key', '{"name": "ok", "\\ud800": 1}', ['body', '\ud800']],
  ])('refuses %s with a 422 and creates nothing', async (_label, payload, loc) => {
    const before = await projectCount();
    const response = await context.app.inject({ method: 'POST', url: '/api/v1/projects', headers: { ...headers, ...json }, payload });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toContainEqual(expect.objectContaining({ loc, type: 'string_unicode' }));
    expect(await projectCount()).toBe(before);
  });

  it('accepts a proper surrogate pair', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { ...headers, ...json },
      payload: '{"name": "smile \\ud83d\\ude00"}',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().name).toBe('smile 😀');
  });

  it.each(['/v1/chat/completions', '/v1/messages'])('forwards nothing upstream for a lone surrogate on %s', async (url) => {
    const calls = upstream.requests.length;
    const model = url === '/v1/messages' ? 'claude-test' : 'gpt-test';
    const response = await context.app.inject({
      method: 'POST',
      url,
      headers: { ...headers, ...json },
      payload: `{"model":"${model}","max_tokens":16,"messages":[{"role":"user","content":"x\\ud800"}]}`,
    });
    expect(response.statusCode).toBe(400);
    expect(upstream.requests.length).toBe(calls);
  });

  it('refuses a surrogate code point percent-encoded in a query value (not UTF-8) as a 4xx', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/v1/chat/completions?after=%ED%A0%80', headers });
    expect([400, 422]).toContain(response.statusCode);
    expect(response.json().error).toMatchObject({ type: 'invalid_request_error' });
  });
});

describe('relativeToWorkspace', () => {
  it('rewrites the root and paths below it, also inside longer strings, and leaves look-alikes alone', async () => {
    const { relativeToWorkspace } = await import('../../src/agent/files/workspace-path.js');
    const root = '/srv/data/workspaces/5';
    expect(
      relativeToWorkspace(
        {
          cwd: root,
          file: `${root}/a/b.txt`,
          command: `cd ${root}/x && ls ${root}`,
          other: '/srv/data/workspaces/55/a',
          list: [`${root}/z`],
          n: 1,
          none: null,
        },
        root,
      ),
    ).toEqual({ cwd: '.', file: 'a/b.txt', command: 'cd x && ls .', other: '/srv/data/workspaces/55/a', list: ['z'], n: 1, none: null });
  });
});
