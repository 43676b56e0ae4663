/**
 * Who may call a route is its config's `caller` rule, checked before the handler: operators are refused on the
 * customer routes with the answers those routes always gave, a User API Key may not manage keys, and a route that
 * reads the calling customer without declaring a rule fails loudly instead of serving an operator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerOf } from '../../src/http/caller.js';
import { buildApp } from '../../src/http/app.js';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { createUserKey, signUp, type SignedUp } from './support.js';

describe('caller rules in the route config', () => {
  let context: TestContext;
  let alice: SignedUp;

  beforeAll(async () => {
    context = await createTestContext();
    alice = await signUp(context, 'alice');
  });
  afterAll(async () => context.close());

  it('refuses operators with each rule’s status and message, and serves customers', async () => {
    const cases: [string, string, number, string][] = [
      ['GET', '/api/v1/me', 403, 'This route needs a customer key'],
      ['GET', '/api/v1/me/api-keys', 403, 'This route needs a customer key'],
      ['POST', '/api/v1/me/api-keys', 403, 'This route needs a customer key'],
      ['GET', '/api/v1/wallet/status', 404, 'Wallet not found'],
      ['GET', '/api/v1/me/api-keys/1/usage', 404, 'Wallet not found'],
      ['POST', '/api/v1/projects', 403, 'Projects belong to customers; use a customer key'],
    ];
    for (const [method, url, status, detail] of cases) {
      const operator = await context.app.inject({
        method: method as 'GET',
        url,
        headers: operatorHeaders,
        payload: method === 'POST' ? {} : undefined,
      });
      expect(operator.statusCode, `${method} ${url}`).toBe(status);
      expect(operator.json().detail, `${method} ${url}`).toBe(detail);
    }
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(alice.systemToken) })).statusCode).toBe(200);
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/wallet/status', headers: bearer(alice.systemToken) })).statusCode).toBe(
      200,
    );
  });

  it('lets a User API Key list keys but not create, change, revoke, replace or rotate them', async () => {
    const userKey = await createUserKey(context, alice, { name: 'tool' });
    const list = await context.app.inject({ method: 'GET', url: '/api/v1/me/api-keys', headers: bearer(userKey.key) });
    expect(list.statusCode).toBe(200);
    const refused: [string, string][] = [
      ['POST', '/api/v1/me/api-keys'],
      ['PATCH', `/api/v1/me/api-keys/${userKey.id}`],
      ['DELETE', `/api/v1/me/api-keys/${userKey.id}`],
      ['POST', `/api/v1/me/api-keys/${userKey.id}/replace`],
      ['POST', '/api/v1/me/api-token/rotate'],
    ];
    for (const [method, url] of refused) {
      const response = await context.app.inject({
        method: method as 'POST',
        url,
        headers: bearer(userKey.key),
        payload: method === 'PATCH' || url.endsWith('api-keys') ? { name: 'x' } : undefined,
      });
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json().detail).toBe('This needs the System Token or a dashboard session with a recent sign-in');
    }
    const stillThere = await context.app.inject({ method: 'GET', url: '/api/v1/me/api-keys', headers: bearer(alice.systemToken) });
    expect(stillThere.json().data.some((key: { id: number; revoked?: boolean }) => key.id === userKey.id)).toBe(true);
  });

  it('answers a 500 when a route reads the customer without declaring a rule, for customers too', async () => {
    const app = await buildApp(context.services);
    app.get('/api/v1/test-forgot-rule', { config: { auth: 'api', surface: 'account' } }, async (request) => ({
      id: customerOf(request).customerId,
    }));
    app.get('/api/v1/test-with-rule', { config: { auth: 'api', surface: 'account', caller: 'customer' } }, async (request) => ({
      id: customerOf(request).customerId,
    }));
    await app.ready();
    try {
      const forgot = await app.inject({ method: 'GET', url: '/api/v1/test-forgot-rule', headers: bearer(alice.systemToken) });
      expect(forgot.statusCode).toBe(500);
      const declared = await app.inject({ method: 'GET', url: '/api/v1/test-with-rule', headers: bearer(alice.systemToken) });
      expect(declared.json()).toEqual({ id: alice.customerId });
      const operator = await app.inject({ method: 'GET', url: '/api/v1/test-with-rule', headers: operatorHeaders });
      expect(operator.statusCode).toBe(403);
    } finally {
      await app.close();
    }
  });
});
