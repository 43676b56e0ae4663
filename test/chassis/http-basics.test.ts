import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';

describe('HTTP basics', () => {
  let context: TestContext;
  beforeAll(async () => {
    context = await createTestContext();
  });
  afterAll(async () => context.close());

  it('answers liveness and readiness with a request id', async () => {
    const live = await context.app.inject({ method: 'GET', url: '/healthz' });
    expect(live.statusCode).toBe(200);
    expect(live.headers['x-request-id']).toMatch(/^req_/);
    const ready = await context.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.json()).toEqual({ status: 'ready', database: context.storage.dialect });
  });

  it("gives every request its own id, keeps a client's sane x-request-id beside it and drops an unsafe one", async () => {
    const kept = await context.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'client-abc.123' } });
    expect(kept.headers['x-request-id']).toMatch(/^req_[A-Za-z0-9]{20}$/);
    expect(kept.headers['x-client-request-id']).toBe('client-abc.123');
    const logged = context.logs.map((line) => JSON.parse(line)).find((line) => line.requestId === kept.headers['x-request-id']);
    expect(logged).toMatchObject({ msg: 'request completed', clientRequestId: 'client-abc.123' });
    const replaced = await context.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\u0007<script>' } });
    expect(replaced.headers['x-request-id']).toMatch(/^req_[A-Za-z0-9]{20}$/);
    expect(replaced.headers['x-client-request-id']).toBeUndefined();
  });

  it('renders unknown routes as JSON 404 with the request id', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/no/such/route' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'NOT_FOUND', request_id: response.headers['x-request-id'] });
  });

  it('explains the base-URL rule when /v1 is doubled', async () => {
    const response = await context.app.inject({ method: 'POST', url: '/v1/v1/chat/completions', headers: operatorHeaders, payload: {} });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.message).toContain('/v1 twice');
  });

  it('hides admin routes from the catalogue unless the caller is an operator', async () => {
    const anonymous = await context.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(anonymous.statusCode).toBe(200);
    const paths = Object.keys(anonymous.json().paths);
    expect(paths).toContain('/healthz');
    expect(anonymous.json().info.version).toBe(JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
    expect(paths.some((p) => p.startsWith('/api/admin'))).toBe(false);
    const docs = await context.app.inject({ method: 'GET', url: '/docs' });
    expect(docs.headers['content-type']).toContain('text/html');
    expect(docs.body).toContain('/healthz');
  });
});
