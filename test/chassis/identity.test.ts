import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/accounts/key-format.js';
import { buildApp } from '../../src/http/app.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, operatorHeaders, STATIC_TOKEN, type TestContext } from '../helpers/context.js';
import { bodyWithoutRequestId, createUserKey, issueManagedKey, signUp, type SignedUp } from './support.js';

describe('identity: bearer kinds, refusals and ownership', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.now());
  let alice: SignedUp;
  let bob: SignedUp;

  beforeAll(async () => {
    context = await createTestContext({ clock });
    alice = await signUp(context, 'alice');
    bob = await signUp(context, 'bob');
  });
  afterAll(async () => context.close());

  const me = (headers: Record<string, string> = {}) => context.app.inject({ method: 'GET', url: '/api/v1/me', headers });

  it('accepts the static env token and a managed operator key on operator routes', async () => {
    const viaStatic = await context.app.inject({ method: 'GET', url: '/api/admin/customers', headers: bearer(STATIC_TOKEN) });
    expect(viaStatic.statusCode).toBe(200);
    const managed = await issueManagedKey(context, { role: 'operator', name: 'ops' });
    expect(managed.key).toMatch(/^sym_/);
    const viaManaged = await context.app.inject({ method: 'GET', url: '/api/admin/customers', headers: bearer(managed.key) });
    expect(viaManaged.statusCode).toBe(200);
    expect(viaManaged.json().data.map((customer: { email: string }) => customer.email)).toContain(alice.email);
  });

  it('accepts a managed customer key, the System Token, the username token and a User API Key on /api/v1/me', async () => {
    const managed = await issueManagedKey(context, { customer_id: alice.customerId });
    const userKey = await createUserKey(context, alice, { name: 'ci' });
    const kinds: [string, string][] = [
      [managed.key, 'managed_key'],
      [alice.systemToken, 'system_token'],
      [alice.usernameToken, 'username_token'],
      [userKey.key, 'user_api_key'],
    ];
    for (const [key, kind] of kinds) {
      const response = await me(bearer(key));
      expect(response.statusCode, kind).toBe(200);
      expect(response.json().customer.id).toBe(alice.customerId);
      expect(response.json().key.kind).toBe(kind);
    }
  });

  it('accepts all five bearer kinds on one api route and resolves each to the right principal', async () => {
    const app = await buildApp(context.services);
    app.get('/api/v1/test-whoami', { config: { auth: 'api', surface: 'account' } }, async (request) => request.principal);
    await app.ready();
    try {
      const operatorKey = await issueManagedKey(context, { role: 'operator' });
      const managedCustomerKey = await issueManagedKey(context, { customer_id: bob.customerId });
      const userKey = await createUserKey(context, bob, { name: 'whoami' });
      const expectations: [string, Record<string, unknown>][] = [
        [STATIC_TOKEN, { kind: 'operator', source: 'static' }],
        [operatorKey.key, { kind: 'operator', source: 'managed', keyId: operatorKey.id }],
        [managedCustomerKey.key, { kind: 'customer', customerId: bob.customerId, keyKind: 'managed' }],
        [bob.systemToken, { kind: 'customer', customerId: bob.customerId, keyKind: 'wallet', keyId: bob.systemTokenId }],
        [bob.usernameToken, { kind: 'customer', customerId: bob.customerId, keyKind: 'username' }],
        [userKey.key, { kind: 'customer', customerId: bob.customerId, keyKind: 'user', keyId: userKey.id }],
      ];
      for (const [key, principal] of expectations) {
        const response = await app.inject({ method: 'GET', url: '/api/v1/test-whoami', headers: bearer(key) });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toMatchObject(principal);
      }
      expect((await app.inject({ method: 'GET', url: '/api/v1/test-whoami' })).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('refuses missing, unknown, other-site, tampered, revoked and expired keys with the same 401 body', async () => {
    const revoked = await createUserKey(context, alice, { name: 'to revoke' });
    expect((await me(bearer(revoked.key))).statusCode).toBe(200);
    const revoke = await context.app.inject({
      method: 'DELETE',
      url: `/api/v1/me/api-keys/${revoked.id}`,
      headers: bearer(alice.systemToken),
    });
    expect(revoke.statusCode).toBe(200);

    const expiring = await createUserKey(context, alice, { expires_at: new Date(clock.nowMs() + 60_000).toISOString() });
    expect((await me(bearer(expiring.key))).statusCode).toBe(200);
    clock.advance(61_000);

    const operatorRevoked = await issueManagedKey(context, { customer_id: bob.customerId });
    expect((await me(bearer(operatorRevoked.key))).statusCode).toBe(200);
    const adminRevoke = await context.app.inject({
      method: 'DELETE',
      url: `/api/admin/keys/${operatorRevoked.id}`,
      headers: operatorHeaders,
    });
    expect(adminRevoke.statusCode).toBe(200);

    const tampered = alice.systemToken.slice(0, -1) + (alice.systemToken.endsWith('A') ? 'B' : 'A');
    const refusals: [string, Record<string, string>][] = [
      ['missing', {}],
      ['not bearer', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
      ['unknown', bearer(generateKey('user').plaintext)],
      ['other site', bearer('sk-proj-0123456789abcdefghijklmnopqrstuvwxyz')],
      ['bad checksum', bearer(tampered)],
      ['revoked by owner', bearer(revoked.key)],
      ['revoked by operator', bearer(operatorRevoked.key)],
      ['expired', bearer(expiring.key)],
      ['wrong static token', bearer(`${STATIC_TOKEN}x`)],
    ];
    const bodies = new Set<string>();
    for (const [label, headers] of refusals) {
      const response = await me(headers);
      expect(response.statusCode, label).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.headers['x-request-id']).toBeTruthy();
      bodies.add(bodyWithoutRequestId(response));
    }
    expect([...bodies]).toEqual(['{"detail":"Missing or invalid bearer token","code":"UNAUTHENTICATED","request_id":"<request-id>"}']);
  });

  it('refuses a key on the very next request after it is replaced, and the replacement works', async () => {
    const original = await createUserKey(context, alice, { name: 'replace me', allowed_surfaces: ['account', 'gateway'] });
    const replaced = await context.app.inject({
      method: 'POST',
      url: `/api/v1/me/api-keys/${original.id}/replace`,
      headers: bearer(alice.systemToken),
    });
    expect(replaced.statusCode).toBe(201);
    expect(replaced.json()).toMatchObject({
      name: 'replace me',
      replaces: original.id,
      policy: { allowed_surfaces: ['account', 'gateway'] },
    });
    expect(replaced.json().key).not.toBe(original.key);
    expect((await me(bearer(original.key))).statusCode).toBe(401);
    expect((await me(bearer(replaced.json().key))).statusCode).toBe(200);
  });

  it('needs no bearer on public routes', async () => {
    for (const url of ['/healthz', '/readyz', '/openapi.json', '/docs', '/api/status/regions', '/api/v1/status/regions']) {
      const response = await context.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
    }
  });

  it('hides operator routes from customers and refuses them without a bearer', async () => {
    const asCustomer = await context.app.inject({ method: 'GET', url: '/api/admin/customers', headers: bearer(alice.systemToken) });
    expect(asCustomer.statusCode).toBe(404);
    const anonymous = await context.app.inject({ method: 'GET', url: '/api/admin/customers' });
    expect(anonymous.statusCode).toBe(401);
    const adminPaths = async (headers: Record<string, string>) =>
      Object.keys((await context.app.inject({ method: 'GET', url: '/openapi.json', headers })).json().paths).filter((path) =>
        path.startsWith('/api/admin'),
      );
    expect(await adminPaths(bearer(alice.systemToken))).toEqual([]);
    expect(await adminPaths(operatorHeaders)).toEqual(
      expect.arrayContaining(['/api/admin/customers', '/api/admin/keys', '/api/admin/keys/{key_id}']),
    );
  });

  it("answers 404 for another customer's key id on PATCH, DELETE and replace, exactly as for a missing id, and changes nothing", async () => {
    const aliceKey = await createUserKey(context, alice, { name: 'alice tool' });
    const attempts = [
      { method: 'PATCH' as const, path: '', payload: { name: 'stolen' } },
      { method: 'DELETE' as const, path: '', payload: undefined },
      { method: 'POST' as const, path: '/replace', payload: undefined },
    ];
    for (const attempt of attempts) {
      const foreign = await context.app.inject({
        method: attempt.method,
        url: `/api/v1/me/api-keys/${aliceKey.id}${attempt.path}`,
        headers: bearer(bob.systemToken),
        payload: attempt.payload,
      });
      const missing = await context.app.inject({
        method: attempt.method,
        url: `/api/v1/me/api-keys/999999${attempt.path}`,
        headers: bearer(bob.systemToken),
        payload: attempt.payload,
      });
      expect(foreign.statusCode, attempt.method).toBe(404);
      expect(bodyWithoutRequestId(foreign)).toBe(bodyWithoutRequestId(missing));
    }
    expect((await me(bearer(aliceKey.key))).statusCode).toBe(200);
    const list = await context.app.inject({ method: 'GET', url: '/api/v1/me/api-keys', headers: bearer(alice.systemToken) });
    expect(list.json().data.find((key: { id: number }) => key.id === aliceKey.id).name).toBe('alice tool');
  });

  it('keeps a User API Key to its allowed surfaces and away from key management', async () => {
    const gatewayOnly = await createUserKey(context, alice, { allowed_surfaces: ['gateway'] });
    const refused = await me(bearer(gatewayOnly.key));
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('SURFACE_NOT_ALLOWED');

    const accountKey = await createUserKey(context, alice, { allowed_surfaces: ['account'] });
    const mint = await context.app.inject({ method: 'POST', url: '/api/v1/me/api-keys', headers: bearer(accountKey.key), payload: {} });
    expect(mint.statusCode).toBe(403);
    const list = await context.app.inject({ method: 'GET', url: '/api/v1/me/api-keys', headers: bearer(alice.systemToken) });
    expect(list.json().data.filter((key: { kind: string }) => key.kind === 'user_api_key').length).toBeGreaterThan(0);
  });
});
