import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { createUserKey, signUp, type SignedUp } from '../chassis/support.js';
import { webLogin, withSession } from './support.js';

const regions = [
  { id: 'london', name: 'London', apiBaseUrl: 'https://london.api.example.test', healthUrl: 'http://127.0.0.1:9/healthz' },
  { id: 'chicago', name: 'Chicago', apiBaseUrl: 'https://chicago.api.example.test', healthUrl: 'http://127.0.0.1:9/healthz' },
];

describe('account settings, inbox, alerts and toolbox', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.UTC(2026, 5, 1));
  let alice: SignedUp;
  let bob: SignedUp;

  beforeAll(async () => {
    context = await createTestContext({ clock, config: { regions } as never });
    alice = await signUp(context, 'alice');
    bob = await signUp(context, 'bob');
  });
  afterAll(async () => context.close());

  const post = (url: string, who: SignedUp, payload?: unknown) =>
    context.app.inject({ method: 'POST', url, headers: bearer(who.systemToken), payload: payload as never });
  const get = (url: string, who: SignedUp) => context.app.inject({ method: 'GET', url, headers: bearer(who.systemToken) });

  it('edge region: a configured region is saved and shown on /me with its base URL; others are 422', async () => {
    expect((await get('/api/v1/me', alice)).json().profile.edge_region.id).toBe('london');
    const set = await post('/api/v1/me/edge-region', alice, { region: 'chicago' });
    expect(set.statusCode, set.body).toBe(200);
    const me = (await get('/api/v1/me', alice)).json();
    expect(me.profile.edge_region).toEqual({ id: 'chicago', name: 'Chicago', api_base_url: 'https://chicago.api.example.test' });
    const bad = await post('/api/v1/me/edge-region', alice, { region: 'tokyo' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['body', 'region']);
    expect((await post('/api/v1/me/edge-region', alice, { region: 'chicago', extra: 1 })).statusCode).toBe(422);
  });

  it('edge region has an effect: the base URLs handed to clients (/me and the desktop bootstrap) are the chosen region’s', async () => {
    const service = context.config.publicBaseUrl;
    const before = (await get('/api/v1/me', bob)).json();
    expect(before).toMatchObject({ base_url: `${service}/v1`, api_base_url: `${service}/api/v1` });
    expect((await post('/api/v1/me/edge-region', bob, { region: 'london' })).statusCode).toBe(200);
    const me = (await get('/api/v1/me', bob)).json();
    expect(me).toMatchObject({ base_url: 'https://london.api.example.test/v1', api_base_url: 'https://london.api.example.test/api/v1' });
    const boot = (await get('/api/v1/desktop/bootstrap', bob)).json();
    expect(boot).toMatchObject({ base_url: 'https://london.api.example.test/v1', api_base_url: 'https://london.api.example.test/api/v1' });
    expect((await post('/api/v1/me/edge-region', bob, { region: 'chicago' })).statusCode).toBe(200);
    expect((await get('/api/v1/desktop/bootstrap', bob)).json().base_url).toBe('https://chicago.api.example.test/v1');
    // The CLI login hands the same base URLs to the CLI.
    const cli = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: bob.email, password: bob.password },
    });
    expect(cli.statusCode, cli.body).toBe(200);
    expect(cli.json()).toMatchObject({
      base_url: 'https://chicago.api.example.test/v1',
      api_base_url: 'https://chicago.api.example.test/api/v1',
    });
    // Another customer's choice changes nothing for alice's neighbour without one.
    const carol = await signUp(context, 'carol');
    expect((await get('/api/v1/me', carol)).json().base_url).toBe(`${service}/v1`);
  });

  it('email: password required, format checked, unique (409), saved', async () => {
    const password = alice.password;
    expect((await post('/api/v1/me/email', alice, { email: 'not-an-email', password })).statusCode).toBe(422);
    expect((await post('/api/v1/me/email', alice, {})).statusCode).toBe(422);
    const withoutPassword = await post('/api/v1/me/email', alice, { email: `x.${alice.email}` });
    expect(withoutPassword.json().detail[0].loc).toEqual(['body', 'password']);
    const wrongPassword = await post('/api/v1/me/email', alice, { email: `x.${alice.email}`, password: 'not-the-password' });
    expect(wrongPassword.statusCode).toBe(422);
    expect(wrongPassword.json().detail[0].loc).toEqual(['body', 'password']);
    expect((await get('/api/v1/me', alice)).json().customer.email).toBe(alice.email);
    expect((await post('/api/v1/me/email', alice, { email: bob.email.toUpperCase(), password })).statusCode).toBe(409);
    const next = `renamed.${alice.email}`;
    const saved = await post('/api/v1/me/email', alice, { email: next, password });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await get('/api/v1/me', alice)).json().customer.email).toBe(next);
    alice.email = next;
  });

  it('password: current one required; other sessions end, the caller stays signed in', async () => {
    const other = await webLogin(context, alice);
    const mine = await webLogin(context, alice);
    const wrong = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/password',
      headers: withSession(mine),
      payload: { current_password: 'nope', new_password: 'new-password-123' },
    });
    expect(wrong.statusCode).toBe(422);
    const ok = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/password',
      headers: withSession(mine),
      payload: { current_password: alice.password, new_password: 'new-password-123' },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    alice.password = 'new-password-123';
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: other.cookie } })).statusCode).toBe(401);
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: mine.cookie } })).statusCode).toBe(200);
  });

  it('profile name: bounded lengths; /me says whether to show the dialog; dismiss is recorded', async () => {
    expect((await get('/api/v1/me', bob)).json().profile.show_name_dialog).toBe(true);
    const dismissed = await post('/api/v1/me/profile-name/dismiss', bob);
    expect(dismissed.statusCode).toBe(200);
    expect((await get('/api/v1/me', bob)).json().profile.show_name_dialog).toBe(false);
    expect((await post('/api/v1/me/profile-name', bob, { first_name: 'x'.repeat(101), surname: 'B' })).statusCode).toBe(422);
    expect((await post('/api/v1/me/profile-name', bob, { first_name: '   ', surname: 'B' })).statusCode).toBe(422);
    const saved = await post('/api/v1/me/profile-name', bob, { first_name: 'Bob', surname: 'Builder' });
    expect(saved.statusCode).toBe(200);
    const me = (await get('/api/v1/me', bob)).json();
    expect(me.profile).toMatchObject({ first_name: 'Bob', surname: 'Builder', show_name_dialog: false });
    expect(me.customer.name).toBe('Bob Builder');
  });

  it("inbox: direct and broadcast messages, newest first, unread count, read once; another customer's id is 404", async () => {
    const direct = await context.app.inject({
      method: 'POST',
      url: '/api/admin/messages',
      headers: operatorHeaders,
      payload: { customer_id: alice.customerId, title: 'Hi Alice', body: 'Just you.' },
    });
    expect(direct.statusCode, direct.body).toBe(201);
    const broadcast = await context.app.inject({
      method: 'POST',
      url: '/api/admin/messages',
      headers: operatorHeaders,
      payload: { all: true, title: 'Maintenance', body: 'Sunday.' },
    });
    expect(broadcast.statusCode).toBe(201);
    expect(
      (
        await context.app.inject({
          method: 'POST',
          url: '/api/admin/messages',
          headers: operatorHeaders,
          payload: { title: 'x', body: 'y' },
        })
      ).statusCode,
    ).toBe(422);
    expect(
      (
        await context.app.inject({
          method: 'POST',
          url: '/api/admin/messages',
          headers: bearer(alice.systemToken),
          payload: { all: true, title: 'x', body: 'y' },
        })
      ).statusCode,
    ).toBe(404);

    // A broadcast is one row, not one per customer.
    const rows = await context.storage.db.selectFrom('inbox_messages').select(['id', 'customer_id']).execute();
    expect(rows.filter((row) => row.customer_id === null)).toHaveLength(1);

    const aliceInbox = (await get('/api/v1/messages', alice)).json();
    expect(aliceInbox.data.map((message: { title: string }) => message.title)).toEqual(['Maintenance', 'Hi Alice']);
    expect(aliceInbox.unread_count).toBe(2);
    const bobInbox = (await get('/api/v1/messages', bob)).json();
    expect(bobInbox.data.map((message: { title: string }) => message.title)).toEqual(['Maintenance']);

    const directId = direct.json().id as number;
    expect((await post(`/api/v1/messages/${directId}/read`, bob)).statusCode).toBe(404);
    expect((await post(`/api/v1/messages/999999/read`, bob)).statusCode).toBe(404);
    expect((await post(`/api/v1/messages/abc/read`, bob)).statusCode).toBe(422);
    expect((await post(`/api/v1/messages/${directId}/read`, alice)).statusCode).toBe(200);
    expect((await post(`/api/v1/messages/${broadcast.json().id}/read`, bob)).statusCode).toBe(200);
    expect((await get('/api/v1/messages', alice)).json().unread_count).toBe(1);
    expect((await get('/api/v1/messages', bob)).json().unread_count).toBe(0);
    expect((await get('/api/v1/messages?limit=1', alice)).json().data).toHaveLength(1);
    expect((await get('/api/v1/messages?limit=0', alice)).statusCode).toBe(422);
    expect((await get('/api/v1/messages?limit=501', alice)).statusCode).toBe(422);
  });

  it('alerts: revoked, replaced, expiring, expired, spending 80 % / reached and a new network, each once; BOLA 404', async () => {
    const revokedKey = await createUserKey(context, bob, { name: 'to-revoke' });
    expect(
      (await context.app.inject({ method: 'DELETE', url: `/api/v1/me/api-keys/${revokedKey.id}`, headers: bearer(bob.systemToken) }))
        .statusCode,
    ).toBe(200);
    const replacedKey = await createUserKey(context, bob, { name: 'to-replace' });
    expect((await post(`/api/v1/me/api-keys/${replacedKey.id}/replace`, bob)).statusCode).toBe(201);
    const expiring = await createUserKey(context, bob, {
      name: 'expiring',
      expires_at: new Date(clock.nowMs() + 3 * 86_400_000).toISOString(),
    });
    const limited = await createUserKey(context, bob, { name: 'limited', spending_limit_micros: 1_000_000 });

    // Spending: settled calls of the limited key, as billing records them.
    const alerts = context.services.accounts.alerts;
    await alerts.spending(bob.customerId, limited.id, 800_000, 1_000_000, 'lifetime:0');
    await alerts.spending(bob.customerId, limited.id, 850_000, 1_000_000, 'lifetime:0');
    await alerts.spending(bob.customerId, limited.id, 1_000_000, 1_000_000, 'lifetime:0');

    // A key used from two networks: the second is new. The record is written off the request path, so wait for it.
    const used = await createUserKey(context, bob, { name: 'travelling' });
    const networksOf = async (count: number) => {
      for (let i = 0; i < 500; i++) {
        const rows = await context.storage.db.selectFrom('key_networks').select('network_hash').where('key_id', '=', used.id).execute();
        if (rows.length >= count) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error('network record never written');
    };
    const callFrom = async (ip: string) =>
      expect(
        (await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(used.key), remoteAddress: ip })).statusCode,
      ).toBe(200);
    await callFrom('198.51.100.7');
    await networksOf(1);
    await callFrom('198.51.100.8');
    await callFrom('203.0.113.50');
    await networksOf(2);
    await callFrom('203.0.113.51');
    await new Promise((resolve) => setImmediate(resolve));

    const list = async () => (await get('/api/v1/me/api-key-alerts', bob)).json().data as { id: number; cause: string; key_id: number }[];
    let causes = (await list()).map((alert) => `${alert.cause}:${alert.key_id}`);
    expect(causes).toContain(`key_revoked:${revokedKey.id}`);
    expect(causes).toContain(`key_replaced:${replacedKey.id}`);
    expect(causes).toContain(`key_expiring:${expiring.id}`);
    expect(causes).toContain(`spending_limit_80:${limited.id}`);
    expect(causes).toContain(`spending_limit_reached:${limited.id}`);
    expect(causes.filter((cause) => cause === `new_network:${used.id}`)).toHaveLength(1);
    expect(causes.filter((cause) => cause === `spending_limit_80:${limited.id}`)).toHaveLength(1);

    clock.advance(4 * 86_400_000);
    causes = (await list()).map((alert) => `${alert.cause}:${alert.key_id}`);
    expect(causes).toContain(`key_expired:${expiring.id}`);
    expect(causes.filter((cause) => cause.startsWith('key_expiring:'))).toHaveLength(1);

    // raise is idempotent per cause.
    expect(await alerts.raise(bob.customerId, { cause: 'auto_topup_failed', causeKey: 'attempt-1', details: {} })).toBe(true);
    expect(await alerts.raise(bob.customerId, { cause: 'auto_topup_failed', causeKey: 'attempt-1', details: {} })).toBe(false);

    const one = (await list())[0]!;
    expect((await post(`/api/v1/me/api-key-alerts/${one.id}/acknowledge`, alice)).statusCode).toBe(404);
    expect((await post(`/api/v1/me/api-key-alerts/${one.id}/acknowledge`, bob)).statusCode).toBe(200);
    expect((await list()).map((alert) => alert.id)).not.toContain(one.id);
    expect(
      (await get('/api/v1/me/api-key-alerts?include_acknowledged=true', bob)).json().data.map((alert: { id: number }) => alert.id),
    ).toContain(one.id);
  });

  it("toolbox: saved within the operator's limits, unknown fields 422, defaultsFor narrows the operator defaults", async () => {
    const initial = (await get('/api/v1/toolbox', alice)).json();
    expect(initial.effective).toEqual({ webSearch: 'live', reasoningEffort: 'xhigh', approvalPolicy: 'never' });
    const saved = await post('/api/v1/toolbox', alice, { webSearch: 'disabled', reasoningEffort: 'low', approvalPolicy: 'on-request' });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(await context.services.accounts.settings.defaultsFor(alice.customerId)).toEqual({
      webSearch: 'disabled',
      reasoningEffort: 'low',
      approvalPolicy: 'on-request',
    });
    expect((await post('/api/v1/toolbox', alice, { webSearch: 'sometimes' })).statusCode).toBe(422);
    expect((await post('/api/v1/toolbox', alice, { reasoningEffort: 'ultra' })).statusCode).toBe(422);
    expect((await post('/api/v1/toolbox', alice, { shell: true })).statusCode).toBe(422);
    expect(await context.services.accounts.settings.defaultsFor(bob.customerId)).toEqual({
      webSearch: 'live',
      reasoningEffort: 'xhigh',
      approvalPolicy: 'never',
    });
  });

  it('customer engagement: defaults, saved values, unknown fields 422', async () => {
    const initial = (await get('/api/v1/customer-engagement', alice)).json();
    expect(initial.email.billing).toBe(true);
    const put = await context.app.inject({
      method: 'PUT',
      url: '/api/v1/customer-engagement',
      headers: bearer(alice.systemToken),
      payload: { email: { billing: false }, inApp: { announcements: false } },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().email).toMatchObject({ billing: false, keyAlerts: true });
    expect(put.json().inApp.announcements).toBe(false);
    const bad = await context.app.inject({
      method: 'PUT',
      url: '/api/v1/customer-engagement',
      headers: bearer(alice.systemToken),
      payload: { email: { sms: true } },
    });
    expect(bad.statusCode).toBe(422);
    const badType = await context.app.inject({
      method: 'PUT',
      url: '/api/v1/customer-engagement',
      headers: bearer(alice.systemToken),
      payload: { email: { billing: 'yes' } },
    });
    expect(badType.statusCode).toBe(422);
  });
});

describe('alert mail honours the engagement preferences', () => {
  let context: TestContext;
  beforeAll(async () => {
    context = await createTestContext({ config: { mail: { logLinks: true } } as never });
  });
  afterAll(async () => context.close());

  const mailLines = (subject: string) => context.logs.filter((line) => line.includes(subject));
  const waitFor = async (predicate: () => boolean) => {
    for (let i = 0; i < 500 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  it('mails an alert when email.keyAlerts is on (default) and not when it is off', async () => {
    const on = await signUp(context, 'on');
    const off = await signUp(context, 'off');
    const put = await context.app.inject({
      method: 'PUT',
      url: '/api/v1/customer-engagement',
      headers: bearer(off.systemToken),
      payload: { email: { keyAlerts: false } },
    });
    expect(put.statusCode).toBe(200);
    const alerts = context.services.accounts.alerts;
    await alerts.raise(off.customerId, { cause: 'key_revoked', causeKey: 'key:1' });
    await alerts.raise(on.customerId, { cause: 'key_revoked', causeKey: 'key:1' });
    // Sign-up's verification mail goes to the same address: wait for the alert itself.
    await waitFor(() => mailLines(on.email).some((line) => line.includes('Switchyard alert')));
    expect(mailLines(on.email).some((line) => line.includes('Switchyard alert: key revoked'))).toBe(true);
    // The preference check for "off" started first, so by now it has finished.
    expect(mailLines(off.email).filter((line) => line.includes('Switchyard alert'))).toHaveLength(0);
  });
});
