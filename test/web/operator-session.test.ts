import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, operatorHeaders, STATIC_TOKEN, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';
import { cookiesOf, webLogin, withSession } from '../accounts/support.js';

interface OperatorCookie {
  cookie: string;
  csrf: string;
  keyId: number;
}

describe('operator console sessions', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.UTC(2026, 5, 1));
  let alice: SignedUp;

  beforeAll(async () => {
    context = await createTestContext({ clock });
    alice = await signUp(context, 'alice');
  });
  afterAll(async () => context.close());

  async function signIn(token: string): Promise<OperatorCookie> {
    const response = await context.app.inject({ method: 'POST', url: '/api/v1/auth/operator-session', payload: { token } });
    expect(response.statusCode, response.body).toBe(201);
    const raw = response.headers['set-cookie'] as string[];
    expect(raw.find((line) => line.startsWith('sy_operator=')!)).toMatch(/HttpOnly; Path=\/api\/admin; SameSite=Strict; Max-Age=28800/);
    const cookies = cookiesOf(response);
    expect(response.json()).toMatchObject({ operator: true, csrf_token: cookies.sy_operator_csrf });
    return { cookie: `sy_operator=${cookies.sy_operator}`, csrf: cookies.sy_operator_csrf!, keyId: response.json().key_id };
  }

  it('opens a session for the static token or a managed operator key, never for anything else', async () => {
    const session = await signIn(STATIC_TOKEN);
    const who = await context.app.inject({ method: 'GET', url: '/api/admin/session', headers: { cookie: session.cookie } });
    expect(who.json()).toMatchObject({ operator: true, source: 'managed', key_id: session.keyId, console_session: true });

    const managed = await context.app.inject({
      method: 'POST',
      url: '/api/admin/keys',
      headers: operatorHeaders,
      payload: { role: 'operator' },
    });
    await signIn(managed.json().key);

    const before = (await context.storage.db.selectFrom('api_keys').select('id').execute()).length;
    for (const token of [alice.systemToken, alice.usernameToken, 'not-a-token', `${STATIC_TOKEN}x`]) {
      const refused = await context.app.inject({ method: 'POST', url: '/api/v1/auth/operator-session', payload: { token } });
      expect(refused.statusCode, token).toBe(401);
      expect(refused.headers['set-cookie']).toBeUndefined();
    }
    expect((await context.storage.db.selectFrom('api_keys').select('id').execute()).length).toBe(before);
    const bad = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/operator-session',
      payload: { token: STATIC_TOKEN, extra: 1 },
    });
    expect(bad.statusCode).toBe(422);
  });

  it('is accepted only on operator routes, and state changes need its CSRF token', async () => {
    const session = await signIn(STATIC_TOKEN);
    const list = await context.app.inject({ method: 'GET', url: '/api/admin/customers', headers: { cookie: session.cookie } });
    expect(list.statusCode).toBe(200);

    const payload = { email: 'made-by-console@example.test' };
    const noToken = await context.app.inject({ method: 'POST', url: '/api/admin/customers', headers: { cookie: session.cookie }, payload });
    expect(noToken.statusCode).toBe(403);
    const wrong = await context.app.inject({
      method: 'POST',
      url: '/api/admin/customers',
      headers: { cookie: session.cookie, 'x-csrf-token': 'x'.repeat(43) },
      payload,
    });
    expect(wrong.statusCode).toBe(403);
    expect(
      await context.storage.db.selectFrom('customers').select('id').where('email', '=', payload.email).executeTakeFirst(),
    ).toBeUndefined();
    const made = await context.app.inject({
      method: 'POST',
      url: '/api/admin/customers',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
      payload,
    });
    expect(made.statusCode, made.body).toBe(201);

    // Not a key anywhere else: customer, project, gateway routes answer 401 to the operator cookie.
    for (const url of ['/api/v1/me', '/api/v1/projects', '/v1/models', '/api/threads']) {
      const response = await context.app.inject({ method: 'GET', url, headers: { cookie: session.cookie } });
      expect(response.statusCode, url).toBe(401);
    }
    // A customer's dashboard session is no operator.
    const dashboard = await webLogin(context, alice);
    for (const url of ['/api/admin/customers', '/api/admin/session', `/api/admin/customers/${alice.customerId}`]) {
      const response = await context.app.inject({ method: 'GET', url, headers: withSession(dashboard) });
      expect(response.statusCode, url).toBe(401);
    }
    const both = await context.app.inject({
      method: 'GET',
      url: '/api/admin/customers',
      headers: { cookie: `${dashboard.cookie}; ${session.cookie}`, ...bearer(alice.systemToken) },
    });
    expect(both.statusCode).toBe(404);
  });

  it('shows one customer with wallet and keys; an unknown customer is 404', async () => {
    const session = await signIn(STATIC_TOKEN);
    const adjust = await context.app.inject({
      method: 'POST',
      url: `/api/admin/customers/${alice.customerId}/wallet/adjust`,
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'idempotency-key': 'console-credit-1' },
      payload: { amount_micros: 2_500_000, reason: 'console test' },
    });
    expect(adjust.statusCode, adjust.body).toBe(200);
    const detail = await context.app.inject({
      method: 'GET',
      url: `/api/admin/customers/${alice.customerId}`,
      headers: { cookie: session.cookie },
    });
    expect(detail.statusCode).toBe(200);
    const body = detail.json();
    expect(body.customer).toMatchObject({ id: alice.customerId, email: alice.email });
    expect(body.wallet.balance.micros).toBe(2_500_000);
    expect(body.keys.map((key: { id: number }) => key.id)).toEqual(expect.arrayContaining([alice.systemTokenId, alice.usernameTokenId]));
    const unknown = await context.app.inject({ method: 'GET', url: '/api/admin/customers/999999', headers: { cookie: session.cookie } });
    expect(unknown.statusCode).toBe(404);
  });

  it('ends at sign-out (its key revoked) and after eight hours', async () => {
    const session = await signIn(STATIC_TOKEN);
    const end = await context.app.inject({
      method: 'POST',
      url: '/api/admin/session/end',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    });
    expect(end.json()).toEqual({ signed_out: true });
    expect(cookiesOf(end).sy_operator).toBe('');
    const key = await context.storage.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('id', '=', session.keyId)
      .executeTakeFirstOrThrow();
    expect(key.revoked_at).not.toBeNull();
    expect((await context.app.inject({ method: 'GET', url: '/api/admin/customers', headers: { cookie: session.cookie } })).statusCode).toBe(
      401,
    );

    const later = await signIn(STATIC_TOKEN);
    clock.advance(8 * 3_600_000 - 1000);
    expect((await context.app.inject({ method: 'GET', url: '/api/admin/customers', headers: { cookie: later.cookie } })).statusCode).toBe(
      200,
    );
    clock.advance(2000);
    expect((await context.app.inject({ method: 'GET', url: '/api/admin/customers', headers: { cookie: later.cookie } })).statusCode).toBe(
      401,
    );
  });
});
