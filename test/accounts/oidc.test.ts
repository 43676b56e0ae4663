import { referralCodeOf } from '../../src/promotions/referral.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { cookiesOf } from './support.js';
import { startProvider, throughProvider } from '../fakes/identity-provider.js';

describe('identity-provider sign-up and sign-in (local oidc-provider)', () => {
  let context: TestContext;
  let idp: Awaited<ReturnType<typeof startProvider>>;
  const redirectUri = 'http://127.0.0.1:1/api/v1/auth/idp/callback';

  beforeAll(async () => {
    idp = await startProvider(redirectUri);
    context = await createTestContext({
      config: {
        idp: { issuer: idp.issuer, clientId: 'switchyard', clientSecret: 'switchyard-client-secret-0123456789', redirectUrl: redirectUri },
        accounts: { registration: 'open' },
      } as never,
    });
    idp.accounts.set('u-new', { email: 'new.person@example.test', email_verified: true, name: 'New Person' });
    idp.accounts.set('u-unverified', { email: 'unverified@example.test', email_verified: false, name: 'Unverified' });
  });
  afterAll(async () => {
    await context.close();
    await idp.close();
  });

  const start = async (query = '') => {
    const response = await context.app.inject({ method: 'GET', url: `/api/v1/auth/idp/start${query}` });
    expect(response.statusCode, response.body).toBe(302);
    const location = new URL(String(response.headers.location));
    expect(location.origin).toBe(idp.issuer);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('state')).toBeTruthy();
    expect(location.searchParams.get('nonce')).toBeTruthy();
    return location.href;
  };
  const callback = (url: URL) => context.app.inject({ method: 'GET', url: `/api/v1/auth/idp/callback${url.search}` });

  it('signs up a new customer with a wallet-linked key and records the attribution, then signs the same customer in', async () => {
    idp.signInAs('u-new');
    // A referrer's code: the new account is attributed to that customer by the promotions.
    const referrer = await context.services.customers.create({ email: `referrer-${Date.now()}@example.test` });
    const code = await referralCodeOf(context.storage.db, referrer.customer.id, Date.now());
    const back = await throughProvider(
      await start(
        `?referralCode=${code}&planId=pro&amountUsd=25.5&source=ads&countryCode=GB&returnTo=/billing.html` +
          '&countryName=United%20Kingdom&deviceFingerprint=fp-0123456789abcdef&mobileNumber=%2B447700900123',
      ),
      redirectUri,
    );
    const done = await callback(back);
    expect(done.statusCode, done.body).toBe(302);
    // Came for an amount: lands on the dashboard's top-up instead of returnTo, with the pack covering it as default.
    expect(done.headers.location).toBe('/dashboard.html#/money');
    const session = cookiesOf(done).sy_session!;
    const me = await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: `sy_session=${session}` } });
    expect(me.statusCode).toBe(200);
    const customerId = me.json().customer.id as number;
    expect(me.json().customer.email).toBe('new.person@example.test');
    const keys = await context.storage.db.selectFrom('api_keys').select('kind').where('customer_id', '=', customerId).execute();
    expect(keys.map((key) => key.kind)).toContain('wallet');
    const attribution = await context.storage.db
      .selectFrom('signup_attributions')
      .selectAll()
      .where('customer_id', '=', customerId)
      .executeTakeFirstOrThrow();
    expect(attribution).toMatchObject({ referral_code: code, plan_id: 'pro', source: 'ads', country_code: 'GB' });
    const referral = await context.storage.db
      .selectFrom('referrals')
      .selectAll()
      .where('referred_customer_id', '=', customerId)
      .executeTakeFirstOrThrow();
    expect(Number(referral.referrer_customer_id)).toBe(referrer.customer.id);
    expect(Number(attribution.amount_usd_micros)).toBe(25_500_000);
    const preferences = await context.app.inject({
      method: 'GET',
      url: '/api/v1/purchase-preferences',
      headers: { cookie: `sy_session=${session}` },
    });
    expect(preferences.json().default_pack_id).toBe('pack-100');
    const checkout = await context.app.inject({
      method: 'POST',
      url: '/api/v1/wallet/crypto/checkout',
      headers: { cookie: `sy_session=${session}`, 'x-csrf-token': cookiesOf(done).sy_csrf! },
      payload: { pay_currency: 'btc' },
    });
    // No processor here: the checkout route is off (404), but it did not ask for a pack (not 422).
    expect(checkout.statusCode).toBe(404);
    // The device and mobile fields are kept and shown to the operator.
    const detail = (
      await context.app.inject({ method: 'GET', url: `/api/admin/customers/${customerId}`, headers: operatorHeaders })
    ).json();
    expect(detail.signup).toMatchObject({
      plan_id: 'pro',
      amount_usd_micros: 25_500_000,
      country_code: 'GB',
      country_name: 'United Kingdom',
      device_fingerprint: 'fp-0123456789abcdef',
      mobile_number: '+447700900123',
    });

    // Second time: signed in, no new account.
    const again = await callback(await throughProvider(await start(), redirectUri));
    expect(again.headers.location).toBe('/dashboard.html');
    const count = await context.storage.db.selectFrom('customers').select('id').where('email', '=', 'new.person@example.test').execute();
    expect(count).toHaveLength(1);

    // Replaying the same callback (state and code) is refused, without a session.
    const replay = await callback(back);
    expect(replay.statusCode).toBe(302);
    expect(String(replay.headers.location)).toMatch(/^\/login\.html\?error=/);
    expect(cookiesOf(replay).sy_session).toBeUndefined();
  });

  it('an identity-provider account sets its first password from its dashboard session, then the CLI login works', async () => {
    idp.accounts.set('u-cli', { email: 'cli.person@example.test', email_verified: true, name: 'Cli Person' });
    idp.signInAs('u-cli');
    const done = await callback(await throughProvider(await start(), redirectUri));
    expect(done.statusCode).toBe(302);
    const cookies = cookiesOf(done);
    const session = { cookie: `sy_session=${cookies.sy_session}`, 'x-csrf-token': cookies.sy_csrf! };
    const cli = (password: string) =>
      context.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: 'cli.person@example.test', password } });

    // No password yet: the CLI login is refused and says how to get one.
    const refused = await cli('a chosen password');
    expect(refused.statusCode).toBe(401);
    const said = (response: { json(): { detail?: unknown; message?: unknown } }) =>
      String(response.json().detail ?? response.json().message);
    expect(said(refused)).toMatch(/identity provider.*Settings → Password/);
    // The same words for an unknown account: nothing tells which emails exist.
    const unknown = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'nobody.here@example.test', password: 'whatever password' },
    });
    expect(said(unknown)).toBe(said(refused));

    // A bare key may not set a first password; the dashboard session may, without a current one.
    const login = await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: session.cookie } });
    const customerId = login.json().customer.id as number;
    expect(customerId).toBeGreaterThan(0);
    const set = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/password',
      headers: session,
      payload: { new_password: 'a chosen password' },
    });
    expect(set.statusCode, set.body).toBe(200);
    expect((await cli('a chosen password')).statusCode).toBe(200);
    // Now that it has one, changing it needs the current password.
    const again = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/password',
      headers: session,
      payload: { new_password: 'another password' },
    });
    expect(again.statusCode).toBe(422);
    expect(again.json().detail[0].loc).toEqual(['body', 'current_password']);
    expect((await cli('a chosen password')).statusCode).toBe(200);
  });

  it('a key cannot set a first password without the current one', async () => {
    const created = await context.services.customers.create({ email: 'keyonly@example.test' });
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/password',
      headers: { authorization: `Bearer ${created.systemToken.key}` },
      payload: { new_password: 'a chosen password' },
    });
    expect(response.statusCode).toBe(403);
    const row = await context.storage.db
      .selectFrom('customers')
      .select('password_hash')
      .where('id', '=', created.customer.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toBeNull();
  });

  it('refuses an unknown state, a provider error, a wrong nonce, a wrong issuer and an unverified email', async () => {
    const refused = async (response: Awaited<ReturnType<typeof callback>>, code: string) => {
      expect(response.statusCode).toBe(302);
      expect(String(response.headers.location)).toBe(`/login.html?error=${code}`);
      expect(cookiesOf(response).sy_session).toBeUndefined();
    };
    idp.signInAs('u-new');

    const unknown = await throughProvider(await start(), redirectUri);
    unknown.searchParams.set('state', 'not-a-state-we-issued');
    await refused(await callback(unknown), 'idp_state_invalid');

    const denied = new URL(await start());
    await refused(await callback(new URL(`${redirectUri}?error=access_denied&state=${denied.searchParams.get('state')}`)), 'idp_denied');

    const nonceCase = await throughProvider(await start(), redirectUri);
    await context.storage.db
      .updateTable('oidc_states')
      .set({ nonce: context.services.accounts.box.encrypt('oidc', 'some-other-nonce') })
      .where('used_at', 'is', null)
      .execute();
    await refused(await callback(nonceCase), 'idp_callback_invalid');

    const issuerCase = await throughProvider(await start(), redirectUri);
    issuerCase.searchParams.set('iss', 'http://127.0.0.1:9/not-the-issuer');
    await refused(await callback(issuerCase), 'idp_callback_invalid');

    idp.signInAs('u-unverified');
    await refused(await callback(await throughProvider(await start(), redirectUri)), 'idp_email_unverified');
  });

  it('refuses a code issued to another client (audience) and a filled honeypot', async () => {
    idp.signInAs('u-new');
    // Authorization for "other-app" with our redirect URI, then handed to our callback with a state of ours.
    const ours = new URL(await start());
    const foreign = new URL(ours.href);
    foreign.searchParams.set('client_id', 'other-app');
    const back = await throughProvider(foreign.href, redirectUri);
    const response = await callback(back);
    expect(String(response.headers.location)).toMatch(/^\/login\.html\?error=idp_callback_invalid/);
    expect(cookiesOf(response).sy_session).toBeUndefined();

    const honeypot = await context.app.inject({ method: 'GET', url: '/api/v1/auth/idp/start?website=http://spam.example' });
    expect(honeypot.statusCode).toBe(400);
    expect(honeypot.body).not.toMatch(/website|honeypot/i);
  });
});

describe('identity-provider sign-up under invite-only registration', () => {
  let context: TestContext;
  let idp: Awaited<ReturnType<typeof startProvider>>;
  const redirectUri = 'http://127.0.0.1:1/api/v1/auth/idp/callback';

  beforeAll(async () => {
    idp = await startProvider(redirectUri);
    context = await createTestContext({
      config: {
        idp: { issuer: idp.issuer, clientId: 'switchyard', clientSecret: 'switchyard-client-secret-0123456789', redirectUrl: redirectUri },
      } as never,
    });
    idp.accounts.set('u-stranger', { email: 'stranger@example.test', email_verified: true, name: 'Stranger' });
    idp.accounts.set('u-invited', { email: 'invited@example.test', email_verified: true, name: 'Invited' });
  });
  afterAll(async () => {
    await context.close();
    await idp.close();
  });

  const signUpThroughProvider = async (account: string) => {
    idp.signInAs(account);
    const started = await context.app.inject({ method: 'GET', url: '/api/v1/auth/idp/start' });
    const back = await throughProvider(String(started.headers.location), redirectUri);
    return context.app.inject({ method: 'GET', url: `/api/v1/auth/idp/callback${back.search}` });
  };
  const customersNamed = (email: string) => context.storage.db.selectFrom('customers').select('id').where('email', '=', email).execute();

  it('refuses a new email without an invite and creates nothing; an invited email signs up and uses its invite', async () => {
    expect(context.config.accounts.registration).toBe('invite');
    const refused = await signUpThroughProvider('u-stranger');
    expect(refused.statusCode).toBe(302);
    expect(refused.headers.location).toBe('/login.html?error=registration_closed');
    expect(await customersNamed('stranger@example.test')).toEqual([]);

    const invited = await context.app.inject({
      method: 'POST',
      url: '/api/admin/invites',
      headers: { authorization: `Bearer ${context.config.env.staticToken}` },
      payload: { email: 'invited@example.test' },
    });
    expect(invited.statusCode).toBe(201);
    const done = await signUpThroughProvider('u-invited');
    expect(done.headers.location).toBe('/dashboard.html');
    const [created] = await customersNamed('invited@example.test');
    const invite = await context.storage.db
      .selectFrom('invites')
      .selectAll()
      .where('email', '=', 'invited@example.test')
      .executeTakeFirstOrThrow();
    expect(Number(invite.customer_id)).toBe(Number(created!.id));
    expect(invite.used_at).not.toBeNull();
  });
});
