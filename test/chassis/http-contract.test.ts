import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { AppError } from '../../src/kernel/errors.js';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from './support.js';

describe('HTTP contract: validation, limits, request ids, 5xx', () => {
  let context: TestContext;
  let owner: SignedUp;

  beforeAll(async () => {
    context = await createTestContext({
      config: {
        server: { bodyLimitBytes: 4096, regionCheckCacheMs: 1_000, regionCheckTimeoutMs: 500 },
        releases: { cli: { version: '1.0.0' } },
      },
    });
    owner = await signUp(context, 'contract');
  });
  afterAll(async () => context.close());

  function expectDetail(
    response: { statusCode: number; json: () => any; headers: Record<string, unknown> },
    loc: (string | number)[],
    type?: string,
  ) {
    expect(response.statusCode).toBe(422);
    const body = response.json();
    expect(Array.isArray(body.detail)).toBe(true);
    for (const issue of body.detail) {
      expect(Object.keys(issue).sort()).toEqual(['loc', 'msg', 'type']);
      expect(typeof issue.msg).toBe('string');
    }
    expect(body.detail).toContainEqual(expect.objectContaining(type ? { loc, type } : { loc }));
    expect(body.request_id).toBe(response.headers['x-request-id']);
  }

  it('answers body validation failures with a FastAPI-style detail list', async () => {
    const response = await context.app.inject({ method: 'POST', url: '/api/v1/customer/register', payload: { email: 'x@y.z' } });
    expectDetail(response, ['body', 'password'], 'missing');
    const wrongType = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/api-keys',
      headers: bearer(owner.systemToken),
      payload: { allowed_models: 'x'.repeat(300) },
    });
    // A string where a list is expected is refused as it is (bodies are never coerced).
    expectDetail(wrongType, ['body', 'allowed_models'], 'array_type');
  });

  it('answers query and path validation failures with their own loc', async () => {
    expectDetail(
      await context.app.inject({ method: 'GET', url: '/api/v1/cli/version?current=banana' }),
      ['query', 'current'],
      'string_pattern_mismatch',
    );
    expectDetail(
      await context.app.inject({ method: 'GET', url: '/api/admin/customers?limit=0', headers: operatorHeaders }),
      ['query', 'limit'],
      'greater_than_equal',
    );
    expectDetail(
      await context.app.inject({ method: 'GET', url: '/api/admin/customers?limit=abc', headers: operatorHeaders }),
      ['query', 'limit'],
      'integer_type',
    );
    expectDetail(
      await context.app.inject({ method: 'DELETE', url: '/api/v1/me/api-keys/1.5', headers: bearer(owner.systemToken) }),
      ['path', 'key_id'],
      'integer_type',
    );
  });

  it('answers malformed JSON with 422 and a json_invalid detail', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/customer/register',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": "a@b.c", "password": ',
    });
    expectDetail(response, ['body'], 'json_invalid');
  });

  it('answers a body over the limit with 413 and changes nothing', async () => {
    const before = await context.storage.db.selectFrom('customers').select('id').execute();
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/customer/register',
      payload: { email: 'big@example.test', password: 'long enough', name: 'x'.repeat(8_000) },
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', request_id: response.headers['x-request-id'] });
    expect(await context.storage.db.selectFrom('customers').select('id').execute()).toHaveLength(before.length);
  });

  it('sends x-request-id on successes and on every kind of error', async () => {
    const responses = await Promise.all([
      context.app.inject({ method: 'GET', url: '/api/v1/cli/version' }),
      context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(owner.systemToken) }),
      context.app.inject({ method: 'GET', url: '/api/v1/me' }),
      context.app.inject({ method: 'GET', url: '/api/v1/nothing-here' }),
      context.app.inject({ method: 'GET', url: '/api/v1/launcher-a/version' }),
      context.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: 'a@b.c' } }),
    ]);
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 401, 404, 404, 422]);
    const ids = responses.map((response) => response.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9]{20}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('hides the cause of a 5xx, carries the request id, and always sends Retry-After with 429', async () => {
    const app = await buildApp(context.services);
    app.get('/api/v1/test-failure', { config: { auth: 'public' } }, async () => {
      throw new Error('connect ECONNREFUSED 10.1.2.3:5432 password=hunter2');
    });
    app.get('/api/v1/test-busy', { config: { auth: 'public' } }, async () => {
      throw new AppError('RATE_LIMITED', 'slow down');
    });
    await app.ready();
    try {
      const response = await app.inject({ method: 'GET', url: '/api/v1/test-failure', headers: { 'x-request-id': 'support-ticket-42' } });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ detail: 'Internal server error', code: 'INTERNAL', request_id: response.headers['x-request-id'] });
      expect(response.headers['x-client-request-id']).toBe('support-ticket-42');
      expect(context.logs.join('')).toContain(response.headers['x-request-id'] as string);
      expect(context.logs.join('')).toContain('support-ticket-42');
      const busy = await app.inject({ method: 'GET', url: '/api/v1/test-busy' });
      expect(busy.statusCode).toBe(429);
      expect(busy.headers['retry-after']).toBe('1');
    } finally {
      await app.close();
    }
  });
});
