import { referralCodeOf } from '../../src/promotions/referral.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/context.js';
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
      await start(`?referralCode=${code}&planId=pro&amountUsd=25.5&source=ads&countryCode=GB&returnTo=/billing.html`),
      redirectUri,
    );
    const done = await callback(back);
    expect(done.statusCode, done.body).toBe(302);
    expect(done.headers.location).toBe('/billing.html');
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
