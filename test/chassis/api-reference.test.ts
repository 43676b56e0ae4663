import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { bearer, operatorHeaders, STATIC_TOKEN, type TestContext } from '../helpers/context.js';
import { billingContext, newCustomer } from '../billing/helpers.js';

describe('/docs: the landing text, examples that work, and the operator routes for an operator', () => {
  let context: TestContext;
  let upstream: ModelUpstream;
  beforeEach(async () => {
    upstream = await startModelUpstream();
    context = await billingContext({ upstreamUrl: upstream.url });
  });
  afterEach(async () => {
    await context.close();
    await upstream.close();
  });

  const document = async (headers: Record<string, string> = {}) =>
    (await context.app.inject({ method: 'GET', url: '/openapi.json', headers })).json();

  it('opens with authentication, the base URLs, a call from each client and the agent turn flow', async () => {
    const { info, servers } = await document();
    const base = context.config.publicBaseUrl;
    expect(servers).toEqual([{ url: base }]);
    for (const text of [
      'Authorization: Bearer',
      `${base}/v1`,
      `${base}/api/v1`,
      'from openai import OpenAI',
      "import Anthropic from '@anthropic-ai/sdk'",
      'wire_api = "responses"',
      `ANTHROPIC_BASE_URL=${base}`,
      '/events?after=0',
      'approvals/{approval_id}',
      'billing_url',
    ])
      expect(info.description, text).toContain(text);
    const page = await context.app.inject({ method: 'GET', url: '/docs' });
    expect(page.body).toContain('Authorization: Bearer');
  });

  it('the first routes have answer schemas with examples, and the request example of each model route works as filled in', async () => {
    const { paths } = await document();
    const media = (operation: any) => operation.requestBody.content['application/json'];
    for (const [path, method, status] of [
      ['/v1/chat/completions', 'post', '200'],
      ['/v1/responses', 'post', '200'],
      ['/v1/messages', 'post', '200'],
      ['/v1/models', 'get', '200'],
      ['/api/v1/wallet/status', 'get', '200'],
      ['/api/v1/me/api-keys', 'post', '201'],
      ['/api/v1/me/api-keys', 'get', '200'],
      ['/api/v1/projects', 'post', '201'],
      ['/api/v1/projects/{projectId}/turns', 'post', '202'],
      ['/api/v1/activity', 'get', '200'],
    ] as const) {
      const answer = paths[path][method].responses[status];
      expect(answer, `${method} ${path}`).toBeDefined();
      const content = answer.content['application/json'];
      expect(content.example ?? content.schema.examples?.[0] ?? content.schema.properties, `${method} ${path}`).toBeDefined();
    }
    expect(paths['/v1/models'].get.responses['200'].content['application/json'].example.data.map((m: { id: string }) => m.id)).toContain(
      'power-ai',
    );
    const buyer = await newCustomer(context, 1_000_000);
    for (const path of ['/v1/chat/completions', '/v1/responses', '/v1/messages']) {
      const example = media(paths[path].post).example;
      expect(example.model, path).toBe('power-ai');
      expect(JSON.stringify(example), path).not.toContain('"string"');
      const tried = await context.app.inject({ method: 'POST', url: path, headers: bearer(buyer.systemToken), payload: example });
      expect(tried.statusCode, `${path}: ${tried.body}`).toBe(200);
    }
    expect(media(paths['/api/v1/projects/{projectId}/turns'].post).example).toMatchObject({ prompt: expect.any(String) });
  });

  it('shows the operator routes to an operator bearer and to a signed-in console at /api/admin/docs, to nobody else', async () => {
    const publicPaths = Object.keys((await document()).paths);
    expect(publicPaths.some((path) => path.startsWith('/api/admin'))).toBe(false);
    expect(Object.keys((await document(operatorHeaders)).paths)).toContain('/api/admin/customers/{customer_id}/activity');

    const buyer = await newCustomer(context);
    expect((await context.app.inject({ method: 'GET', url: '/api/admin/docs' })).statusCode).toBe(401);
    expect((await context.app.inject({ method: 'GET', url: '/api/admin/docs', headers: bearer(buyer.systemToken) })).statusCode).not.toBe(
      200,
    );
    const session = await context.app.inject({ method: 'POST', url: '/api/v1/auth/operator-session', payload: { token: STATIC_TOKEN } });
    expect(session.statusCode).toBe(201);
    const cookie = session.cookies.map((entry) => `${entry.name}=${entry.value}`).join('; ');
    const docs = await context.app.inject({ method: 'GET', url: '/api/admin/docs', headers: { cookie } });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
    expect(docs.body).toContain('/api/admin/customers/{customer_id}/activity');
    const json = await context.app.inject({ method: 'GET', url: '/api/admin/openapi.json', headers: { cookie } });
    expect(Object.keys(json.json().paths)).toContain('/api/admin/customers/{customer_id}/wallet/adjust');
  });
});
