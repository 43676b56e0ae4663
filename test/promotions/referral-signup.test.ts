/**
 * Referral attribution on every sign-up path: the share link keeps the code (cookie and `?ref=` on the sign-up
 * page), email registration takes it from the body or the cookie, the identity-provider sign-up from its query
 * or the cookie; the referrer then earns a share of the referred customer's paid top-ups, clawed back on refund.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCardProcessor, type CardProcessor } from '../fakes/card-processor.js';
import { startProvider, throughProvider } from '../fakes/identity-provider.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { solvedHumanCheck } from '../helpers/human-check.js';
import { cookiesOf } from '../accounts/support.js';
import { signUp, uniqueEmail } from '../chassis/support.js';
import { cardConfig, deliver, expectInvariants, paymentsContext, walletOf } from '../payments/support.js';

describe('referral attribution at sign-up', () => {
  let context: TestContext;
  let processor: CardProcessor;
  let idp: Awaited<ReturnType<typeof startProvider>>;
  const redirectUri = 'http://127.0.0.1:1/api/v1/auth/idp/callback';
  let code: string;
  let referrerId: number;
  let referrerToken: string;

  beforeAll(async () => {
    processor = await startCardProcessor();
    idp = await startProvider(redirectUri);
    context = await paymentsContext({
      config: {
        payments: { card: cardConfig(processor) },
        // Self-service sign-up, and a referral share to earn (both off in the defaults).
        accounts: { registration: 'open' },
        promotions: { referral: { shareBasisPoints: 1000 } },
        idp: { issuer: idp.issuer, clientId: 'switchyard', clientSecret: 'switchyard-client-secret-0123456789', redirectUrl: redirectUri },
      },
    });
    const referrer = await signUp(context, 'referrer');
    referrerId = referrer.customerId;
    referrerToken = referrer.systemToken;
    code = (await context.app.inject({ method: 'GET', url: '/api/v1/referral', headers: bearer(referrer.systemToken) })).json()
      .referral_code;
  });
  afterAll(async () => {
    await expectInvariants(context);
    await context.close();
    await processor.close();
    await idp.close();
  });

  const referrerOf = async (customerId: number) => {
    const row = await context.storage.db
      .selectFrom('referrals')
      .select('referrer_customer_id')
      .where('referred_customer_id', '=', customerId)
      .executeTakeFirst();
    return row ? Number(row.referrer_customer_id) : null;
  };
  const register = async (payload: Record<string, unknown>, cookie?: string) =>
    context.app.inject({
      method: 'POST',
      url: '/api/v1/customer/register',
      headers: cookie ? { cookie } : {},
      payload: {
        email: uniqueEmail('friend'),
        password: 'a long enough password',
        humanCheck: await solvedHumanCheck(context),
        ...payload,
      },
    });

  it('the share link lands on the sign-up page with the code in the query and in a cookie; an unknown code keeps nothing', async () => {
    const visit = await context.app.inject({ method: 'GET', url: `/r/${code}`, remoteAddress: '203.0.113.20' });
    expect(visit.statusCode).toBe(302);
    expect(String(visit.headers.location)).toMatch(/^\/login\.html\?/);
    const landing = new URL(String(visit.headers.location), 'http://any.example');
    expect(landing.pathname).toBe('/login.html');
    expect(landing.hash).toBe('#/register');
    expect(landing.searchParams.get('ref')).toBe(code);
    expect(cookiesOf(visit).sy_ref).toBe(code);
    const unknown = await context.app.inject({ method: 'GET', url: '/r/nosuchcode1', remoteAddress: '203.0.113.21' });
    expect(unknown.statusCode).toBe(302);
    expect(cookiesOf(unknown).sy_ref).toBeUndefined();
  });

  it('email sign-up: the code from the body or from the share link cookie attributes the account; the cookie is then cleared', async () => {
    const byBody = await register({ referralCode: code });
    expect(byBody.statusCode, byBody.body).toBe(201);
    expect(await referrerOf(byBody.json().customer.id)).toBe(referrerId);

    const visit = await context.app.inject({ method: 'GET', url: `/r/${code}`, remoteAddress: '203.0.113.22' });
    const byCookie = await register({}, `sy_ref=${cookiesOf(visit).sy_ref}`);
    expect(byCookie.statusCode, byCookie.body).toBe(201);
    expect(await referrerOf(byCookie.json().customer.id)).toBe(referrerId);
    expect(String(byCookie.headers['set-cookie'])).toMatch(/sy_ref=;.*Max-Age=0/);

    // Without a code nothing is attributed; an unknown code creates the account unattributed.
    const plain = await register({});
    expect(await referrerOf(plain.json().customer.id)).toBeNull();
    const unknown = await register({ referralCode: 'unknown0000' });
    expect(unknown.statusCode).toBe(201);
    expect(await referrerOf(unknown.json().customer.id)).toBeNull();
  });

  it('a malformed referral code is a 422 naming the field and creates no account', async () => {
    const before = (await context.storage.db.selectFrom('customers').select('id').execute()).length;
    const response = await register({ referralCode: 'no spaces!' });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0].loc).toEqual(['body', 'referralCode']);
    expect((await context.storage.db.selectFrom('customers').select('id').execute()).length).toBe(before);
  });

  it('identity-provider sign-up takes the code the share link kept in the cookie (the login button carries no query)', async () => {
    idp.accounts.set('u-referred', { email: 'referred.by.cookie@example.test', email_verified: true, name: 'Referred' });
    idp.signInAs('u-referred');
    const start = await context.app.inject({
      method: 'GET',
      url: '/api/v1/auth/idp/start?returnTo=/dashboard.html',
      headers: { cookie: `sy_ref=${code}` },
    });
    expect(start.statusCode, start.body).toBe(302);
    const back = await throughProvider(String(start.headers.location), redirectUri);
    const done = await context.app.inject({ method: 'GET', url: `/api/v1/auth/idp/callback${back.search}` });
    expect(done.statusCode, done.body).toBe(302);
    const customer = await context.storage.db
      .selectFrom('customers')
      .select('id')
      .where('email', '=', 'referred.by.cookie@example.test')
      .executeTakeFirstOrThrow();
    expect(await referrerOf(Number(customer.id))).toBe(referrerId);
  });

  it('a paid top-up of a customer referred by cookie earns the referrer its share; the refund claws it back', async () => {
    const visit = await context.app.inject({ method: 'GET', url: `/r/${code}`, remoteAddress: '203.0.113.23' });
    const friend = await register({}, `sy_ref=${cookiesOf(visit).sy_ref}`);
    const before = (await walletOf(context, referrerId)).cashBalanceMicros;
    const checkout = await context.app.inject({
      method: 'POST',
      url: '/api/v1/wallet/card/checkout',
      headers: bearer(friend.json().api_key),
      payload: { pack_id: 'pack-25' },
    });
    expect(checkout.statusCode, checkout.body).toBe(201);
    const sessionId = checkout.json().session_id as string;
    const send = (event: unknown) => {
      const raw = JSON.stringify(event);
      return deliver(context, raw, processor.signature(raw));
    };
    expect((await send(processor.event('checkout.session.completed', processor.pay(sessionId)))).statusCode).toBe(200);
    expect((await walletOf(context, referrerId)).cashBalanceMicros).toBe(before + 2_500_000);
    await send(processor.event('charge.refunded', processor.refundCharge(sessionId, 2500)));
    expect((await walletOf(context, referrerId)).cashBalanceMicros).toBe(before);
    const status = (await context.app.inject({ method: 'GET', url: '/api/v1/referral', headers: bearer(referrerToken) })).json();
    expect(status.referred.total).toBeGreaterThanOrEqual(4);
  });
});
