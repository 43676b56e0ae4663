import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, hotp, newTotpSecret, stepAt, totpAt, verifyTotp, type TotpAlgorithm } from '../../src/accounts/totp.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';
import { codeAt, cookiesOf, dashboardFrom, webLogin, withSession } from './support.js';

describe('TOTP (RFC 6238)', () => {
  // Appendix B: the seeds are the ASCII strings "1234567890" repeated to the hash's key length.
  const seeds: Record<TotpAlgorithm, Buffer> = {
    sha1: Buffer.from('12345678901234567890'),
    sha256: Buffer.from('12345678901234567890123456789012'),
    sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
  };
  const vectors: [number, string, string, string][] = [
    [59, '94287082', '46119246', '90693936'],
    [1111111109, '07081804', '68084774', '25091201'],
    [1111111111, '14050471', '67062674', '99943326'],
    [1234567890, '89005924', '91819424', '93441116'],
    [2000000000, '69279037', '90698825', '38618901'],
    [20000000000, '65353130', '77737706', '47863826'],
  ];
  it.each(vectors)('T=%i gives the RFC codes for SHA-1, SHA-256 and SHA-512', (seconds, sha1, sha256, sha512) => {
    expect(totpAt(seeds.sha1, seconds * 1000, 8, 'sha1')).toBe(sha1);
    expect(totpAt(seeds.sha256, seconds * 1000, 8, 'sha256')).toBe(sha256);
    expect(totpAt(seeds.sha512, seconds * 1000, 8, 'sha512')).toBe(sha512);
  });

  it('accepts T-1, T and T+1 only', () => {
    const secret = newTotpSecret();
    const key = base32Decode(secret);
    const now = 1_800_000_000_000;
    const step = stepAt(now);
    for (const offset of [-1, 0, 1]) expect(verifyTotp(secret, hotp(key, step + offset), now)).toBe(step + offset);
    for (const offset of [-3, -2, 2, 3]) expect(verifyTotp(secret, hotp(key, step + offset), now)).toBeNull();
    expect(verifyTotp(secret, 'abcdef', now)).toBeNull();
  });
});

describe('dashboard web login, sessions and CSRF', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.UTC(2026, 5, 1));
  let alice: SignedUp;

  beforeAll(async () => {
    context = await createTestContext({
      clock,
      config: {
        accounts: { sessionIdleMinutes: 30, sessionAbsoluteHours: 2, lockout: { maxFailures: 4, perIpFactor: 50, windowMinutes: 15 } },
      } as never,
    });
    alice = await signUp(context, 'alice');
  });
  afterAll(async () => context.close());

  it('sets an HttpOnly SameSite=Lax session cookie and a readable CSRF cookie; the id is not in the body', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/web-login',
      payload: { email: alice.email, password: alice.password },
    });
    expect(response.statusCode, response.body).toBe(200);
    const setCookie = ([] as string[]).concat(response.headers['set-cookie'] as string[]);
    const session = setCookie.find((line) => line.startsWith('sy_session='))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).not.toMatch(/Secure/); // the public URL of the test is http
    const csrf = setCookie.find((line) => line.startsWith('sy_csrf='))!;
    expect(csrf).not.toMatch(/HttpOnly/);
    const body = response.json();
    expect(body.two_factor_required).toBe(false);
    expect(body.customer_id).toBe(alice.customerId);
    expect(response.body).not.toContain(cookiesOf(response).sy_session);
  });

  it('a session reaches account routes (GET without CSRF; state changes only with the token)', async () => {
    const dashboard = await webLogin(context, alice);
    const me = await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: dashboard.cookie } });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().customer.id).toBe(alice.customerId);
    expect(me.json().session).toBe(true);

    const noToken = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/profile-name',
      headers: { cookie: dashboard.cookie },
      payload: { first_name: 'Alice', surname: 'Liddell' },
    });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.body).toMatch(/CSRF/);
    const wrongToken = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/profile-name',
      headers: { cookie: dashboard.cookie, 'x-csrf-token': `${dashboard.csrf}x` },
      payload: { first_name: 'Alice', surname: 'Liddell' },
    });
    expect(wrongToken.statusCode).toBe(403);
    const other = await webLogin(context, alice);
    const othersToken = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/profile-name',
      headers: { cookie: dashboard.cookie, 'x-csrf-token': other.csrf },
      payload: { first_name: 'Alice', surname: 'Liddell' },
    });
    expect(othersToken.statusCode).toBe(403);
    const ok = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/profile-name',
      headers: withSession(dashboard),
      payload: { first_name: 'Alice', surname: 'Liddell' },
    });
    expect(ok.statusCode, ok.body).toBe(200);

    // Keys can be managed from the dashboard (the session acts for the System Token).
    const keys = await context.app.inject({ method: 'GET', url: '/api/v1/me/api-keys', headers: { cookie: dashboard.cookie } });
    expect(keys.statusCode).toBe(200);
    const created = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/api-keys',
      headers: withSession(dashboard),
      payload: { name: 'from-dashboard' },
    });
    expect(created.statusCode, created.body).toBe(201);
  });

  it('a session reaches the managed-project routes (state changes only with the CSRF token)', async () => {
    const dashboard = await webLogin(context, alice);
    const before = await context.app.inject({ method: 'GET', url: '/api/v1/projects', headers: { cookie: dashboard.cookie } });
    expect(before.statusCode, before.body).toBe(200);
    const count = before.json().data.length;
    const noToken = await context.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { cookie: dashboard.cookie },
      payload: { name: 'web' },
    });
    expect(noToken.statusCode).toBe(403);
    expect(
      (await context.app.inject({ method: 'GET', url: '/api/v1/projects', headers: { cookie: dashboard.cookie } })).json().data.length,
    ).toBe(count);
    const created = await context.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: withSession(dashboard),
      payload: { name: 'web' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const project = await context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${created.json().id}`,
      headers: { cookie: dashboard.cookie },
    });
    expect(project.statusCode).toBe(200);
    // The same project is the System Token's: the session acts as that key.
    const viaKey = await context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${created.json().id}`,
      headers: bearer(alice.systemToken),
    });
    expect(viaKey.statusCode).toBe(200);
  });

  it('a session is refused with 401 on /v1, direct thread, agent and rpc routes, and on operator routes', async () => {
    const dashboard = await webLogin(context, alice);
    for (const [method, url] of [
      ['GET', '/v1/models'],
      ['POST', '/v1/chat/completions'],
      ['GET', '/api/threads'],
      ['POST', '/api/turns'],
      ['GET', '/api/events'],
      ['GET', '/api/v1/agent/status'],
      ['POST', '/api/rpc'],
    ] as const) {
      const response = await context.app.inject({
        method,
        url,
        headers: withSession(dashboard),
        payload: method === 'POST' ? {} : undefined,
      });
      expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(401);
    }
    const admin = await context.app.inject({ method: 'GET', url: '/api/admin/customers', headers: { cookie: dashboard.cookie } });
    expect([401, 404]).toContain(admin.statusCode);
    // The bearer keeps working alongside.
    expect((await context.app.inject({ method: 'GET', url: '/v1/models', headers: bearer(alice.systemToken) })).statusCode).toBe(200);
  });

  it('an unknown cookie is 401, and a bearer wins over a cookie without needing CSRF', async () => {
    const unknown = await context.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: { cookie: 'sy_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    });
    expect(unknown.statusCode).toBe(401);
    const dashboard = await webLogin(context, alice);
    const both = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/profile-name/dismiss',
      headers: { cookie: dashboard.cookie, ...bearer(alice.systemToken) },
    });
    expect(both.statusCode, both.body).toBe(200);
  });

  it('sessions expire when idle and at their absolute expiry, and end at sign-out', async () => {
    const idle = await webLogin(context, alice);
    clock.advance(31 * 60_000);
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: idle.cookie } })).statusCode).toBe(401);

    const busy = await webLogin(context, alice);
    for (let i = 0; i < 4; i++) {
      clock.advance(25 * 60_000);
      expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: busy.cookie } })).statusCode).toBe(200);
    }
    clock.advance(25 * 60_000); // 125 minutes after sign-in: past the 2-hour absolute expiry
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: busy.cookie } })).statusCode).toBe(401);

    const out = await webLogin(context, alice);
    const logout = await context.app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: withSession(out) });
    expect(logout.statusCode).toBe(200);
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: out.cookie } })).statusCode).toBe(401);
  });

  it('wrong passwords are 401; repeated failures lock the account with 429 and Retry-After', async () => {
    const bob = await signUp(context, 'bob');
    for (let i = 0; i < 4; i++) {
      const wrong = await context.app.inject({
        method: 'POST',
        url: '/api/v1/auth/web-login',
        payload: { email: bob.email, password: 'wrong-password' },
      });
      expect(wrong.statusCode).toBe(401);
    }
    const locked = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/web-login',
      payload: { email: bob.email, password: bob.password },
    });
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    clock.advance(15 * 60_000 + 1);
    const after = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/web-login',
      payload: { email: bob.email, password: bob.password },
    });
    expect(after.statusCode).toBe(200);
  });

  it('per-IP failures across accounts ask that address for the human check, never refuse a correct password', async () => {
    const ip = '203.0.113.9';
    // perIpFactor 50 x maxFailures 4 = 200; use a dedicated context-free check through the service.
    const lockout = context.services.accounts.lockout;
    for (let i = 0; i < 200; i++) await lockout.fail('web-login', `nobody-${i}@example.test`, ip);
    const asked = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/web-login',
      payload: { email: alice.email, password: alice.password },
      remoteAddress: ip,
    });
    expect(asked.statusCode, asked.body).toBe(422);
    expect(asked.json().detail[0].loc[1]).toBe('humanCheck');
    // Another address is not affected at all.
    const elsewhere = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/web-login',
      payload: { email: alice.email, password: alice.password },
      remoteAddress: '198.51.100.20',
    });
    expect(elsewhere.statusCode, elsewhere.body).toBe(200);
    clock.advance(15 * 60_000 + 1);
  });

  it('with 2FA: the first step answers with a challenge and no session; a code completes it once', async () => {
    const carol = await signUp(context, 'carol');
    const setup = await context.app.inject({ method: 'POST', url: '/api/v1/me/2fa/setup', headers: bearer(carol.systemToken) });
    expect(setup.statusCode, setup.body).toBe(200);
    const { secret, otpauth_uri: uri } = setup.json();
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(uri).toContain(`secret=${secret}`);

    // Not active until enabled: web login still opens a session directly.
    expect(
      (
        await context.app.inject({
          method: 'POST',
          url: '/api/v1/auth/web-login',
          payload: { email: carol.email, password: carol.password },
        })
      ).json().two_factor_required,
    ).toBe(false);

    const badEnable = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/2fa/enable',
      headers: bearer(carol.systemToken),
      payload: { code: '000000' === codeAt(secret, clock.nowMs()) ? '111111' : '000000', password: carol.password },
    });
    expect(badEnable.statusCode).toBe(422);
    const enable = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/2fa/enable',
      headers: bearer(carol.systemToken),
      payload: { code: codeAt(secret, clock.nowMs()), password: carol.password },
    });
    expect(enable.statusCode, enable.body).toBe(200);

    clock.advance(30_000);
    const first = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/web-login',
      payload: { email: carol.email, password: carol.password },
    });
    expect(first.statusCode).toBe(200);
    expect(first.json().two_factor_required).toBe(true);
    expect(cookiesOf(first).sy_session).toBeUndefined();
    const challenge = first.json().challenge as string;

    const wrong = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/web-login/2fa',
      payload: { challenge, code: codeAt(secret, clock.nowMs() + 5 * 30_000) },
    });
    expect(wrong.statusCode).toBe(401);
    const code = codeAt(secret, clock.nowMs());
    const second = await context.app.inject({ method: 'POST', url: '/api/v1/auth/web-login/2fa', payload: { challenge, code } });
    expect(second.statusCode, second.body).toBe(200);
    const dashboard = dashboardFrom(second);
    expect(
      (await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: dashboard.cookie } })).json().two_factor_enabled,
    ).toBe(true);

    // The challenge is used, and the same code (same step) is refused on a new challenge: replay.
    expect((await context.app.inject({ method: 'POST', url: '/api/v1/auth/web-login/2fa', payload: { challenge, code } })).statusCode).toBe(
      401,
    );
    const again = (
      await context.app.inject({ method: 'POST', url: '/api/v1/auth/web-login', payload: { email: carol.email, password: carol.password } })
    ).json();
    expect(
      (await context.app.inject({ method: 'POST', url: '/api/v1/auth/web-login/2fa', payload: { challenge: again.challenge, code } }))
        .statusCode,
    ).toBe(401);
    // The next step's code (within the T+1 window) works.
    const next = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/web-login/2fa',
      payload: { challenge: again.challenge, code: codeAt(secret, clock.nowMs() + 30_000) },
    });
    expect(next.statusCode, next.body).toBe(200);

    // Disable with the password from the dashboard.
    const disable = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/2fa/disable',
      headers: withSession(dashboard),
      payload: { password: carol.password },
    });
    expect(disable.statusCode, disable.body).toBe(200);
    expect(
      (
        await context.app.inject({
          method: 'POST',
          url: '/api/v1/auth/web-login',
          payload: { email: carol.email, password: carol.password },
        })
      ).json().two_factor_required,
    ).toBe(false);
  });

  it('an expired challenge is refused', async () => {
    const dave = await signUp(context, 'dave');
    const { secret } = (
      await context.app.inject({ method: 'POST', url: '/api/v1/me/2fa/setup', headers: bearer(dave.systemToken) })
    ).json();
    await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/2fa/enable',
      headers: bearer(dave.systemToken),
      payload: { code: codeAt(secret, clock.nowMs()), password: dave.password },
    });
    clock.advance(60_000);
    const { challenge } = (
      await context.app.inject({ method: 'POST', url: '/api/v1/auth/web-login', payload: { email: dave.email, password: dave.password } })
    ).json();
    clock.advance(6 * 60_000);
    const late = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/web-login/2fa',
      payload: { challenge, code: codeAt(secret, clock.nowMs()) },
    });
    expect(late.statusCode).toBe(401);
  });
});

describe('CLI login lockout', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.UTC(2026, 5, 1));
  beforeAll(async () => {
    context = await createTestContext({
      clock,
      config: { accounts: { lockout: { maxFailures: 3, perIpFactor: 5, windowMinutes: 10 } } } as never,
    });
  });
  afterAll(async () => context.close());

  it('answers 429 with Retry-After after repeated failures of one account, until the window ends', async () => {
    const erin = await signUp(context, 'erin');
    const login = (password: string) =>
      context.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: erin.email, password } });
    for (let i = 0; i < 3; i++) expect((await login('wrong')).statusCode).toBe(401);
    const locked = await login(erin.password);
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    clock.advance(10 * 60_000 + 1);
    expect((await login(erin.password)).statusCode).toBe(200);
  });
});
