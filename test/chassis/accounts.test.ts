import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { bodyWithoutRequestId, createUserKey, signUp, uniqueEmail } from './support.js';
import { solvedHumanCheck } from '../helpers/human-check.js';

const models = {
  providers: [{ id: 'upstream', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1' }],
  models: [{ id: 'model-a', provider: 'upstream', upstreamModel: 'model-a' }],
  aliases: { 'power-ai': 'model-a' },
  rateLimitPlans: { basic: { requestsPerMinute: 60, concurrentRequests: 2 } },
};

describe('accounts: registration, login, /me and keys', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.now());

  beforeAll(async () => {
    // Registration itself is under test here: open, as an operator who wants self-service sign-up configures it.
    context = await createTestContext({
      clock,
      config: { ...models, accounts: { registration: 'open' } },
      env: { SWITCHYARD_PUBLIC_URL: 'https://api.switchyard.test' },
    });
  });
  afterAll(async () => context.close());

  const countRows = async (table: 'customers' | 'api_keys') =>
    Number(
      (
        await context.storage.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('registers a customer once and refuses a second account for the same email with 409', async () => {
    const email = uniqueEmail('carol');
    const first = await context.app.inject({
      method: 'POST',
      url: '/api/v1/customer/register',
      payload: { email, password: 'correct horse battery', humanCheck: await solvedHumanCheck(context) },
    });
    expect(first.statusCode).toBe(201);
    const body = first.json();
    expect(body.customer).toMatchObject({ email, name: null });
    expect(body.api_key).toMatch(/^syw_/);
    expect(body.username_token).toMatch(/^syn_/);
    expect(body.base_url).toBe('https://api.switchyard.test/v1');

    const customersBefore = await countRows('customers');
    const keysBefore = await countRows('api_keys');
    const again = await context.app.inject({
      method: 'POST',
      url: '/api/v1/customer/register',
      payload: { email: email.toUpperCase(), password: 'another password', humanCheck: await solvedHumanCheck(context) },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('CONFLICT');
    expect(await countRows('customers')).toBe(customersBefore);
    expect(await countRows('api_keys')).toBe(keysBefore);
  });

  it('validates registration bodies and refuses fields that would set owner, balance, role or kind', async () => {
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ email: 'not-an-email', password: 'long enough' }, ['body', 'email']],
      [{ email: uniqueEmail(), password: 'short' }, ['body', 'password']],
      [{ email: uniqueEmail(), password: 'x'.repeat(257) }, ['body', 'password']],
      [{ password: 'long enough' }, ['body', 'email']],
      [{ email: uniqueEmail(), password: 'long enough', balance_micros: 1_000_000 }, ['body', 'balance_micros']],
      [{ email: uniqueEmail(), password: 'long enough', role: 'operator' }, ['body', 'role']],
    ];
    const before = await countRows('customers');
    for (const [payload, loc] of cases) {
      const response = await context.app.inject({ method: 'POST', url: '/api/v1/customer/register', payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      expect(response.json().detail.map((issue: { loc: unknown }) => issue.loc)).toContainEqual(loc);
    }
    expect(await countRows('customers')).toBe(before);
  });

  it('logs in by email, username or login and issues a new working key; bad credentials get one 401', async () => {
    const dave = await signUp(context, 'dave');
    for (const payload of [
      { email: dave.email.toUpperCase(), password: dave.password },
      { username: dave.username, password: dave.password },
      { login: dave.email, password: dave.password },
    ]) {
      const response = await context.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(200);
      expect(response.json()).toMatchObject({ customer_id: dave.customerId, default_model: 'power-ai' });
      const key = response.json().api_key;
      expect(key).not.toBe(dave.systemToken);
      const me = await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key) });
      expect(me.json().customer.id).toBe(dave.customerId);
    }
    const wrongPassword = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: dave.email, password: 'wrong password' },
    });
    const unknownEmail = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: uniqueEmail('nobody'), password: dave.password },
    });
    const unknownUsername = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'nobody-000000', password: 'x' },
    });
    for (const response of [wrongPassword, unknownEmail, unknownUsername]) expect(response.statusCode).toBe(401);
    expect(new Set([wrongPassword, unknownEmail, unknownUsername].map(bodyWithoutRequestId)).size).toBe(1);
    // One answer that never says which part was wrong (it only says how an identity-provider account gets a password).
    expect(wrongPassword.json().detail).toMatch(/^Invalid credentials\./);
    expect(wrongPassword.body).not.toMatch(/(wrong|incorrect|unknown|no such|not found)[^.]*(password|email|user)/i);

    const ambiguous = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: dave.email, username: dave.username, password: dave.password },
    });
    expect(ambiguous.statusCode).toBe(422);
  });

  it('describes the account, its wallet and the CLI configuration on /api/v1/me', async () => {
    const erin = await signUp(context, 'erin');
    const response = await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(erin.systemToken) });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.customer).toMatchObject({ id: erin.customerId, email: erin.email, username: erin.username, name: 'erin' });
    expect(body.wallet).toMatchObject({ micros: expect.any(Number), usd: expect.stringMatching(/^-?\d+\.\d{6}$/) });
    expect(body).toMatchObject({
      base_url: 'https://api.switchyard.test/v1',
      api_base_url: 'https://api.switchyard.test/api/v1',
      default_model: 'power-ai',
    });
    const asOperator = await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: operatorHeaders });
    expect(asOperator.statusCode).toBe(403);
  });

  it('lists keys without secrets or hashes and shows the System Token, username token and User API Keys', async () => {
    const frank = await signUp(context, 'frank');
    const created = await createUserKey(context, frank, {
      name: 'build bot',
      allowed_surfaces: ['gateway'],
      allowed_models: ['power-ai'],
      spending_limit_micros: 5_000_000,
      spending_period: 'day',
      rate_limit_plan: 'basic',
      expires_at: new Date(clock.nowMs() + 86_400_000).toISOString(),
    });
    expect(created.key).toMatch(/^syu_/);
    expect(created.policy).toEqual({
      allowed_surfaces: ['gateway'],
      allowed_models: ['power-ai'],
      spending_limit_micros: 5_000_000,
      spending_period: 'day',
      rate_limit_plan: 'basic',
    });
    const list = await context.app.inject({ method: 'GET', url: '/api/v1/me/api-keys', headers: bearer(frank.systemToken) });
    expect(list.statusCode).toBe(200);
    const kinds = list
      .json()
      .data.map((key: { kind: string }) => key.kind)
      .sort();
    expect(kinds).toEqual(['system_token', 'user_api_key', 'username_token']);
    for (const secret of [frank.systemToken, frank.usernameToken, created.key]) expect(list.body).not.toContain(secret);
    expect(list.body).not.toMatch(/key_hash|"key"/);
    const entry = list.json().data.find((key: { id: number }) => key.id === created.id);
    expect(entry).toMatchObject({ name: 'build bot', prefix: created.key.slice(0, 8), last_four: created.key.slice(-4) });
  });

  it('changes a key policy with PATCH, clears settings with null, and rejects bad policies without changing anything', async () => {
    const gina = await signUp(context, 'gina');
    const key = await createUserKey(context, gina, { name: 'tool', spending_limit_micros: 1_000 });
    const patch = (payload: unknown, id: number | string = key.id) =>
      context.app.inject({
        method: 'PATCH',
        url: `/api/v1/me/api-keys/${id}`,
        headers: bearer(gina.systemToken),
        payload: payload as object,
      });

    const renamed = await patch({ name: 'renamed', allowed_surfaces: ['gateway', 'account'], spending_period: 'week' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({
      name: 'renamed',
      policy: { allowed_surfaces: ['gateway', 'account'], spending_limit_micros: 1_000, spending_period: 'week' },
    });
    const cleared = await patch({ spending_limit_micros: null, spending_period: null });
    expect(cleared.json().policy).toMatchObject({ spending_limit_micros: null, spending_period: null });
    // A limit of zero is a limit (nothing may be spent), not "no limit".
    const zeroLimit = await patch({ spending_limit_micros: 0 });
    expect(zeroLimit.json().policy.spending_limit_micros).toBe(0);
    await patch({ spending_limit_micros: null });

    const refusals: [unknown, (string | number)[]][] = [
      [{ customer_id: 1 }, ['body', 'customer_id']],
      [{ kind: 'wallet' }, ['body', 'kind']],
      [{ balance_micros: 10 }, ['body', 'balance_micros']],
      [{ allowed_surfaces: ['admin'] }, ['body', 'allowed_surfaces', 0]],
      [{ allowed_models: ['no-such-model'] }, ['body', 'allowed_models', 0]],
      [{ spending_limit_micros: -1 }, ['body', 'spending_limit_micros']],
      [{ spending_period: 'day' }, ['body', 'spending_period']],
      // An unknown plan must not become "no rate limit".
      [{ rate_limit_plan: 'unlimited-please' }, ['body', 'rate_limit_plan']],
      [{ expires_at: 'tomorrow' }, ['body', 'expires_at']],
      [{ expires_at: new Date(clock.nowMs() - 1_000).toISOString() }, ['body', 'expires_at']],
      [{}, ['body']],
    ];
    for (const [payload, loc] of refusals) {
      const response = await patch(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      expect(
        response.json().detail.map((issue: { loc: unknown }) => issue.loc),
        JSON.stringify(payload),
      ).toContainEqual(loc);
    }
    const list = await context.app.inject({ method: 'GET', url: '/api/v1/me/api-keys', headers: bearer(gina.systemToken) });
    expect(list.json().data.find((entry: { id: number }) => entry.id === key.id)).toMatchObject({
      name: 'renamed',
      policy: { allowed_surfaces: ['gateway', 'account'], spending_limit_micros: null },
    });

    const badId = await patch({ name: 'x' }, 'abc');
    expect(badId.statusCode).toBe(422);
    expect(badId.json().detail[0]).toMatchObject({ loc: ['path', 'key_id'], type: 'integer_type' });
    const zero = await patch({ name: 'x' }, 0);
    expect(zero.json().detail[0]).toMatchObject({ loc: ['path', 'key_id'], type: 'greater_than_equal' });
  });

  it('rotates the username token at most once per 24 hours, answering 429 with an integer Retry-After', async () => {
    const hank = await signUp(context, 'hank');
    const rotate = (token: string) => context.app.inject({ method: 'POST', url: '/api/v1/me/api-token/rotate', headers: bearer(token) });
    const first = await rotate(hank.systemToken);
    expect(first.statusCode).toBe(200);
    const newToken = first.json().username_token;
    expect(newToken).toMatch(/^syn_/);
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(hank.usernameToken) })).statusCode).toBe(401);
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(newToken) })).statusCode).toBe(200);

    clock.advance(3_600_000);
    const second = await rotate(hank.systemToken);
    expect(second.statusCode).toBe(429);
    expect(second.headers['retry-after']).toBe(String(23 * 3600));
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(newToken) })).statusCode).toBe(200);

    clock.advance(23 * 3_600_000);
    const third = await rotate(hank.systemToken);
    expect(third.statusCode).toBe(200);
  });

  it('revokes a login key through DELETE and refuses to revoke the username token', async () => {
    const ivy = await signUp(context, 'ivy');
    const login = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: ivy.email, password: ivy.password },
    });
    const loginKey = login.json();
    const revoke = await context.app.inject({
      method: 'DELETE',
      url: `/api/v1/me/api-keys/${loginKey.api_key_id}`,
      headers: bearer(ivy.systemToken),
    });
    expect(revoke.statusCode).toBe(200);
    expect(revoke.json()).toMatchObject({ id: loginKey.api_key_id, kind: 'system_token', revoked: true });
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(loginKey.api_key) })).statusCode).toBe(401);
    const again = await context.app.inject({
      method: 'DELETE',
      url: `/api/v1/me/api-keys/${loginKey.api_key_id}`,
      headers: bearer(ivy.systemToken),
    });
    expect(again.statusCode).toBe(404);
    const username = await context.app.inject({
      method: 'DELETE',
      url: `/api/v1/me/api-keys/${ivy.usernameTokenId}`,
      headers: bearer(ivy.systemToken),
    });
    expect(username.statusCode).toBe(409);
  });

  it('lets operators create and page through customers and refuses a managed key for a missing customer', async () => {
    const email = uniqueEmail('ops-made');
    const created = await context.app.inject({
      method: 'POST',
      url: '/api/admin/customers',
      headers: operatorHeaders,
      payload: { email, name: 'Made by ops' },
    });
    expect(created.statusCode).toBe(201);
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(created.json().api_key) })).statusCode).toBe(200);

    const seen: string[] = [];
    let after: number | null = 0;
    while (after !== null) {
      const page = await context.app.inject({
        method: 'GET',
        url: `/api/admin/customers?limit=2&after_id=${after}`,
        headers: operatorHeaders,
      });
      expect(page.statusCode).toBe(200);
      expect(page.json().data.length).toBeLessThanOrEqual(2);
      seen.push(...page.json().data.map((customer: { email: string }) => customer.email));
      after = page.json().next_after_id;
    }
    expect(seen).toContain(email);
    expect(new Set(seen).size).toBe(seen.length);

    const tooMany = await context.app.inject({ method: 'GET', url: '/api/admin/customers?limit=101', headers: operatorHeaders });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'less_than_equal' });

    const missing = await context.app.inject({
      method: 'POST',
      url: '/api/admin/keys',
      headers: operatorHeaders,
      payload: { customer_id: 999_999 },
    });
    expect(missing.statusCode).toBe(404);
    const both = await context.app.inject({
      method: 'POST',
      url: '/api/admin/keys',
      headers: operatorHeaders,
      payload: { customer_id: 1, role: 'operator' },
    });
    expect(both.statusCode).toBe(422);
  });
});
