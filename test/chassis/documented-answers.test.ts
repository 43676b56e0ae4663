/**
 * Answers the spec and docs promise, where the code once said something else: the research PDF's string id,
 * the identity-provider callback without a provider, disabled processors, and defaults in `/openapi.json`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from './support.js';

describe('documented answers', () => {
  let context: TestContext;
  let owner: SignedUp;
  beforeAll(async () => {
    context = await createTestContext();
    owner = await signUp(context, 'doc');
  });
  afterAll(async () => context.close());

  it('the research PDF takes a string id: an id that is no number is 404, like an unknown number', async () => {
    for (const id of ['nope', '0', '12abc', '99999999999999999999', '424242']) {
      const response = await context.app.inject({
        method: 'GET',
        url: `/api/v1/desktop-chat/messages/${id}/research.pdf`,
        headers: bearer(owner.systemToken),
      });
      expect(response.statusCode, id).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
    const spec = (await context.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const parameter = spec.paths['/api/v1/desktop-chat/messages/{message_id}/research.pdf'].get.parameters.find(
      (entry: { name: string }) => entry.name === 'message_id',
    );
    expect(parameter.schema.type).toBe('string');
  });

  it('the identity-provider callback without a configured provider is 404, as its start is', async () => {
    for (const url of ['/api/v1/auth/idp/callback', '/api/v1/auth/idp/callback?code=x&state=y', '/api/v1/auth/idp/start']) {
      const response = await context.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('disabled card and crypto processors answer 404, as the config says', async () => {
    for (const [url, payload] of [
      ['/api/v1/wallet/card/checkout', { pack_id: 'pack-10' }],
      ['/api/v1/wallet/crypto/checkout', { pack_id: 'pack-10', pay_currency: 'btc' }],
    ] as const) {
      const response = await context.app.inject({ method: 'POST', url, headers: bearer(owner.systemToken), payload });
      expect(response.statusCode, `${url} ${response.body}`).toBe(404);
    }
  });

  it('query parameters with a default (limit) are optional in /openapi.json, and leaving them out uses the default', async () => {
    const spec = (await context.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const withDefaults: string[] = [];
    for (const [path, operations] of Object.entries(spec.paths as Record<string, Record<string, { parameters?: unknown[] }>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const parameter of (operation.parameters ?? []) as {
          in: string;
          name: string;
          required?: boolean;
          schema?: { default?: unknown };
        }[]) {
          if (parameter.in !== 'query' || parameter.schema?.default === undefined) continue;
          withDefaults.push(`${method} ${path} ${parameter.name}`);
          expect(parameter.required, `${method} ${path} ${parameter.name}`).not.toBe(true);
        }
      }
    }
    expect(withDefaults).toContain('get /api/v1/messages limit');
    expect(withDefaults).toContain('get /api/v1/desktop-chat/conversations limit');
    const listed = await context.app.inject({ method: 'GET', url: '/api/v1/messages', headers: bearer(owner.systemToken) });
    expect(listed.statusCode, listed.body).toBe(200);
  });
});
