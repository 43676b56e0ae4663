/**
 * The response contract: every 2xx in `/openapi.json` has a schema, and the suite's answers are checked against
 * them (`SWITCHYARD_CONTRACT_CHECK=1`, set in vitest.config.ts): an answer off its schema becomes a 500 naming
 * the route, so the test that made the call fails.
 */
import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyResponseContract, responseCatalog } from '../../src/http/contract/index.js';
import type { App } from '../../src/http/types.js';
import { createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';

type OpenApiPaths = {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
};

/** `METHOD /path status` of every 2xx without a schema, and of every operation that documents no answer at all. */
function undocumentedAnswers(spec: OpenApiPaths): string[] {
  const missing: string[] = [];
  for (const [path, operations] of Object.entries(spec.paths))
    for (const [method, operation] of Object.entries(operations)) {
      const responses = Object.entries(operation.responses ?? {});
      const success = responses.filter(([status]) => /^2\d\d$/.test(status));
      // A redirect documents its 3xx; a route that never succeeds (a 404 kept for a protocol) its 4xx.
      if (success.length === 0 && !responses.some(([status]) => /^[34]\d\d$/.test(status)))
        missing.push(`${method.toUpperCase()} ${path} (no answer documented)`);
      for (const [status, answer] of success)
        if (status !== '204' && !Object.values(answer.content ?? {}).some((media) => media.schema !== undefined))
          missing.push(`${method.toUpperCase()} ${path} ${status}`);
    }
  return missing;
}

const Greeting = Type.Object({ greeting: Type.String(), count: Type.Integer() });

async function appWith(check: boolean, answer: unknown) {
  const app = Fastify() as unknown as App;
  applyResponseContract(app, { check, catalogs: [{ 'GET /greeting': { 200: Greeting } }] });
  app.get('/greeting', async () => answer);
  app.get('/elsewhere', async () => ({ anything: true }));
  await app.ready();
  return app;
}

describe('response contract', () => {
  it('passes an answer that matches its schema, unchanged (extra fields included: schemas never reshape)', async () => {
    const app = await appWith(true, { greeting: 'hi', count: 2, extra: 'kept' });
    const response = await app.inject({ method: 'GET', url: '/greeting' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ greeting: 'hi', count: 2, extra: 'kept' });
    await app.close();
  });

  it('turns an answer off its schema into a 500 that names the route and the mismatch', async () => {
    const app = await appWith(true, { greeting: 'hi', count: 'two' });
    const response = await app.inject({ method: 'GET', url: '/greeting' });
    expect(response.statusCode).toBe(500);
    expect(response.json().detail).toMatch(/GET \/greeting answered 200 off its schema at \/count/);
    const elsewhere = await app.inject({ method: 'GET', url: '/elsewhere' });
    expect(elsewhere.json()).toEqual({ anything: true });
    await app.close();
  });

  it('without the check, documents the schema and sends the answer as built', async () => {
    const app = await appWith(false, { greeting: 'hi', count: 'two' });
    const response = await app.inject({ method: 'GET', url: '/greeting' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ greeting: 'hi', count: 'two' });
    await app.close();
  });

  it('checks string formats as JSON Schema means them (date-time)', async () => {
    const Stamped = Type.Object({ at: Type.String({ format: 'date-time' }) });
    const answers = ['2026-11-27T23:20:09.000Z', 'yesterday'];
    const app = Fastify() as unknown as App;
    applyResponseContract(app, { check: true, catalogs: [{ 'GET /stamp/:n': { 200: Stamped } }] });
    app.get('/stamp/:n', async (request) => ({ at: answers[Number((request.params as { n: string }).n)] }));
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/stamp/0' })).statusCode).toBe(200);
    const bad = await app.inject({ method: 'GET', url: '/stamp/1' });
    expect(bad.statusCode).toBe(500);
    expect(bad.json().detail).toMatch(/at \/at: .*date-time/);
    await app.close();
  });

  it('refuses a route declared in two catalogs', () => {
    expect(() => responseCatalog([{ 'GET /a': { 200: Greeting } }, { 'GET /a': { 200: Greeting } }])).toThrow(/GET \/a is declared twice/);
  });
});

describe('response contract: /openapi.json', () => {
  let context: TestContext;
  beforeAll(async () => {
    context = await createTestContext();
  });
  afterAll(async () => context.close());

  it('gives every documented 2xx answer a schema', async () => {
    const document = await context.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(undocumentedAnswers(document.json())).toEqual([]);
  });

  it('gives every documented 2xx answer of the operator routes a schema (/api/admin/openapi.json)', async () => {
    const document = await context.app.inject({ method: 'GET', url: '/api/admin/openapi.json', headers: operatorHeaders });
    expect(document.statusCode).toBe(200);
    const spec = document.json() as OpenApiPaths;
    expect(Object.keys(spec.paths).some((path) => path.startsWith('/api/admin/'))).toBe(true);
    expect(undocumentedAnswers(spec).filter((entry) => entry.split(' ')[1]!.startsWith('/api/admin'))).toEqual([]);
  });
});
