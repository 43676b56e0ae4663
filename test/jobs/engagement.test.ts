/**
 * Engagement preferences have real effects, through HTTP with a real local SMTP server, the card-processor
 * double, the scripted model upstream and a fake clock driving the job runner:
 * - email.billing: a receipt for each paid top-up and a low-balance notice; off (also by the mail's one-click
 *   unsubscribe link) sends nothing;
 * - email.inboxDigest: the weekly digest at its hour, once a week; email.productUpdates: operator broadcasts
 *   mailed once; inApp.announcements off hides broadcasts from the inbox;
 * - the inbox gets payment received, key expiring, spending limit reached and a sign-in from a new network
 *   (found by the alert scan job, nobody reading the alerts);
 * - a refunded top-up's raffle entries are gone; a mail the SMTP server first refuses is sent again by the runner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { startCardProcessor, type CardProcessor } from '../fakes/card-processor.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { bearer, operatorHeaders, type TestContext } from '../helpers/context.js';
import { billingContext, chat, credit, newCustomer } from '../billing/helpers.js';
import { createUserKey, signUp, type SignedUp } from '../chassis/support.js';
import { cardConfig, deliver, expectInvariants } from '../payments/support.js';
import { headerLine, startSmtp, toOf, unsubscribeLinkOf, type Smtp } from './support.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

describe('engagement mail and inbox events', () => {
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 12)); // a Monday
  let context: TestContext;
  let processor: CardProcessor;
  let upstream: ModelUpstream;
  let smtp: Smtp;
  let url: string;

  beforeAll(async () => {
    processor = await startCardProcessor();
    upstream = await startModelUpstream();
    smtp = await startSmtp();
    context = await billingContext({
      upstreamUrl: upstream.url,
      clock,
      config: {
        payments: { card: cardConfig(processor) },
        mail: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false }, from: 'Switchyard <no-reply@example.test>' },
        jobs: { pollIntervalMs: MINUTE, mailRetryIntervalMs: MINUTE, retryBaseMs: MINUTE, alertScanIntervalMs: 5 * MINUTE },
        engagement: { lowBalanceMicros: 5_000_000, digestWeekday: 1, digestHourUtc: 9 },
        promotions: { raffle: { enabled: true, entriesPerPaidTopUp: 5, periodDays: 7 } },
        accounts: { registration: 'open' },
      },
    });
    url = await context.listen();
  });
  afterAll(async () => {
    await expectInvariants(context);
    await context.close();
    await Promise.all([processor.close(), upstream.close(), smtp.close()]);
  });

  const get = (path: string, token: string) => context.app.inject({ method: 'GET', url: path, headers: bearer(token) });
  const inboxTitles = async (token: string) =>
    ((await get('/api/v1/messages?limit=100', token)).json().data as { title: string }[]).map((m) => m.title);
  const engagement = async (token: string) => (await get('/api/v1/customer-engagement', token)).json();
  const setEngagement = async (token: string, payload: Record<string, unknown>) => {
    const response = await context.app.inject({ method: 'PUT', url: '/api/v1/customer-engagement', headers: bearer(token), payload });
    expect(response.statusCode, response.body).toBe(200);
  };
  /** Everything started by now has run: the due jobs, the mail and checks they started. */
  const settle = async () => {
    await context.services.billing.wallet.settled();
    await new Promise((resolve) => setImmediate(resolve));
    await context.services.jobs.idle();
  };
  const advance = async (ms: number) => {
    clock.advance(ms);
    await settle();
  };
  /** Reads until the predicate holds (the alert's inbox entry is written off the request path). */
  const eventually = async <T>(read: () => Promise<T>, predicate: (value: T) => boolean): Promise<T> => {
    for (let i = 0; i < 300; i++) {
      const value = await read();
      if (predicate(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return read();
  };
  const outboxOf = (customerId: number) =>
    context.storage.db.selectFrom('mail_outbox').selectAll().where('customer_id', '=', customerId).orderBy('id').execute();
  const payCard = async (token: string) => {
    const checkout = await context.app.inject({
      method: 'POST',
      url: '/api/v1/wallet/card/checkout',
      headers: bearer(token),
      payload: { pack_id: 'pack-25' },
    });
    expect(checkout.statusCode, checkout.body).toBe(201);
    const sessionId = checkout.json().session_id as string;
    const session = processor.pay(sessionId);
    expect((await send(processor.event('checkout.session.completed', session))).statusCode).toBe(200);
    return sessionId;
  };
  const send = (event: unknown) => {
    const raw = JSON.stringify(event);
    return deliver(context, raw, processor.signature(raw, { timestampSeconds: Math.floor(clock.nowMs() / 1000) }));
  };

  it('a paid top-up: "Payment received" in the inbox and a receipt whose one-click link turns billing mail off; a refund takes its raffle entries', async () => {
    const buyer = await signUp(context, 'buyer');
    const sessionId = await payCard(buyer.systemToken);
    expect(await inboxTitles(buyer.systemToken)).toContain('Payment received');
    const receipt = await smtp.waitFor((mail) => toOf(mail).includes(buyer.email) && /receipt/i.test(mail.subject ?? ''));
    expect(receipt.subject).toBe('Switchyard receipt: USD 25.00 received');
    expect(receipt.text).toContain('USD 25.00 credited to your token wallet');
    expect(headerLine(receipt, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect((await get('/api/v1/raffle', buyer.systemToken)).json().current.your_entries).toBe(5);

    // The refund takes the top-up's entries out of the raffle not drawn yet.
    expect((await send(processor.event('charge.refunded', processor.refundCharge(sessionId, 2500)))).statusCode).toBe(200);
    expect((await get('/api/v1/raffle', buyer.systemToken)).json().current).toMatchObject({ your_entries: 0 });

    // One click, no sign-in: billing mail off. A forged or altered link changes nothing.
    const link = new URL(unsubscribeLinkOf(receipt));
    const forged = link.search.replace(/\.billing\./, '.productUpdates.');
    expect((await context.app.inject({ method: 'GET', url: `${link.pathname}${forged}` })).statusCode).toBe(422);
    expect((await context.app.inject({ method: 'GET', url: `${link.pathname}?token=1.billing.${'A'.repeat(43)}` })).statusCode).toBe(422);
    expect((await engagement(buyer.systemToken)).email.billing).toBe(true);
    const opened = await context.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(opened.statusCode).toBe(200);
    expect(opened.headers['content-type']).toContain('text/html');
    expect(opened.body).toContain('billing mail');
    // Opening changes nothing (mail scanners open links); the page's button posts.
    expect((await engagement(buyer.systemToken)).email).toMatchObject({ billing: true, keyAlerts: true });
    const clicked = () =>
      context.app.inject({
        method: 'POST',
        url: `${link.pathname}${link.search}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        payload: 'List-Unsubscribe=One-Click',
      });
    expect((await clicked()).statusCode).toBe(200);
    expect((await engagement(buyer.systemToken)).email).toMatchObject({ billing: false, keyAlerts: true });
    expect((await clicked()).statusCode).toBe(200);

    // Off means no mail: the next payment lands in the inbox, no receipt is stored or sent.
    await payCard(buyer.systemToken);
    await settle();
    expect((await inboxTitles(buyer.systemToken)).filter((title) => title === 'Payment received')).toHaveLength(2);
    expect((await outboxOf(buyer.customerId)).filter((row) => row.kind === 'receipt')).toHaveLength(1);
    expect(smtp.received.filter((mail) => toOf(mail).includes(buyer.email) && /receipt/i.test(mail.subject ?? ''))).toHaveLength(1);
  });

  it('low balance: a notice when a settlement leaves the wallet below the line, none with billing mail off', async () => {
    const low = await newCustomer(context, 3_000_000);
    const quiet = await newCustomer(context, 3_000_000);
    await setEngagement(quiet.systemToken, { email: { billing: false } });
    for (const who of [low, quiet]) {
      const response = await chat(url, who.systemToken);
      expect(response.status).toBe(200);
      await response.text();
    }
    await settle();
    const email = (
      await context.storage.db.selectFrom('customers').select('email').where('id', '=', low.customerId).executeTakeFirstOrThrow()
    ).email;
    const notice = await smtp.waitFor((mail) => toOf(mail).includes(email) && /balance is low/.test(mail.subject ?? ''));
    expect(notice.text).toContain('below USD 5.00');
    expect(unsubscribeLinkOf(notice)).toContain('.billing.');
    expect((await outboxOf(low.customerId)).map((row) => row.kind)).toEqual(['low_balance']);
    expect(await outboxOf(quiet.customerId)).toEqual([]);
  });

  it('the inbox gets key expiring, spending limit reached (found by the scan job) and a sign-in from a new network', async () => {
    const owner = await signUp(context, 'keys');
    await credit(context, owner.customerId, 10_000_000);
    await createUserKey(context, owner, { name: 'soon', expires_at: new Date(clock.nowMs() + 3 * DAY).toISOString() });
    const limited = await createUserKey(context, owner, { name: 'capped', spending_limit_micros: 1 });
    const spent = await chat(url, limited.key);
    expect(spent.status).toBe(200);
    await spent.text();
    await settle();
    expect(await inboxTitles(owner.systemToken)).not.toContain('API key expiring');

    // Nobody opens the alerts: the scan job finds them.
    await advance(5 * MINUTE);
    const titles = await eventually(
      () => inboxTitles(owner.systemToken),
      (list) => list.includes('API key expiring') && list.includes('Spending limit reached'),
    );
    expect(titles.filter((title) => title === 'API key expiring')).toHaveLength(1);
    expect(titles.filter((title) => title === 'Spending limit reached')).toHaveLength(1);
    const messages = (await get('/api/v1/messages', owner.systemToken)).json().data as { title: string; body: string }[];
    expect(messages.find((m) => m.title === 'API key expiring')!.body).toContain('"soon"');
    expect(messages.find((m) => m.title === 'Spending limit reached')!.body).toContain('"capped"');

    // The dashboard's sign-in and the CLI login both count.
    const login = (remoteAddress: string, url = '/api/v1/auth/web-login') =>
      context.app.inject({
        method: 'POST',
        url,
        remoteAddress,
        payload: { email: owner.email, password: owner.password },
      });
    expect((await login('198.51.100.7')).statusCode).toBe(200);
    expect((await login('198.51.100.99', '/api/v1/auth/login')).statusCode).toBe(200);
    expect(await inboxTitles(owner.systemToken)).not.toContain('Sign-in from a new network');
    expect((await login('203.0.113.9')).statusCode).toBe(200);
    const afterNew = await eventually(
      () => inboxTitles(owner.systemToken),
      (list) => list.includes('Sign-in from a new network'),
    );
    expect(afterNew.filter((title) => title === 'Sign-in from a new network')).toHaveLength(1);
    const signIn = (await get('/api/v1/messages', owner.systemToken))
      .json()
      .data.find((m: { title: string }) => m.title === 'Sign-in from a new network');
    expect(signIn.body).toContain('203.0.113.0/24');

    // inApp.keyAlerts off: the alerts are still raised, the inbox stays quiet.
    const silent = await signUp(context, 'silent');
    await setEngagement(silent.systemToken, { inApp: { keyAlerts: false } });
    await createUserKey(context, silent, { name: 'soon', expires_at: new Date(clock.nowMs() + 3 * DAY).toISOString() });
    await advance(5 * MINUTE);
    await eventually(
      async () => (await get('/api/v1/me/api-key-alerts', silent.systemToken)).json().data as { cause: string }[],
      (alerts) => alerts.some((alert) => alert.cause === 'key_expiring'),
    );
    expect(await inboxTitles(silent.systemToken)).not.toContain('API key expiring');
  });

  it('weekly digest: at its hour for those who turned it on, once a week; the one-click POST turns it off', async () => {
    const reader = await signUp(context, 'digest');
    const other = await signUp(context, 'nodigest');
    await setEngagement(reader.systemToken, { email: { inboxDigest: true } });
    const digests = (who: SignedUp) =>
      smtp.received.filter((mail) => toOf(mail).includes(who.email) && /Your Switchyard week/.test(mail.subject ?? ''));
    const nextMonday9 = Date.UTC(2026, 5, 8, 9);
    await advance(nextMonday9 - 1 - clock.nowMs());
    expect(digests(reader)).toHaveLength(0);
    await advance(1);
    const digest = await smtp.waitFor((mail) => toOf(mail).includes(reader.email) && /Your Switchyard week/.test(mail.subject ?? ''));
    expect(digest.subject).toBe('Your Switchyard week to 2026-06-08');
    expect(digest.text).toContain('Balance:');
    expect(digest.text).toContain('Unread inbox messages:');
    await advance(DAY);
    expect(digests(reader)).toHaveLength(1);
    expect(digests(other)).toHaveLength(0);

    const link = new URL(unsubscribeLinkOf(digest));
    const oneClick = await context.app.inject({
      method: 'POST',
      url: `${link.pathname}${link.search}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode, oneClick.body).toBe(200);
    expect(oneClick.json()).toEqual({ unsubscribed: true, preference: 'email.inboxDigest' });
    expect((await engagement(reader.systemToken)).email.inboxDigest).toBe(false);
    await advance(7 * DAY);
    expect(digests(reader)).toHaveLength(1);
  });

  it('product updates: a broadcast is mailed once to those who want them; inApp.announcements off hides it; a refused send is retried', async () => {
    const fan = await signUp(context, 'fan');
    const plain = await signUp(context, 'plain');
    const hidden = await signUp(context, 'hidden');
    await setEngagement(fan.systemToken, { email: { productUpdates: true } });
    await setEngagement(hidden.systemToken, { inApp: { announcements: false } });

    const broadcast = (title: string) =>
      context.app.inject({
        method: 'POST',
        url: '/api/admin/messages',
        headers: operatorHeaders,
        payload: { all: true, title, body: `${title}: details` },
      });
    expect((await broadcast('Switchyard 2.0 is out')).statusCode).toBe(201);
    const update = await smtp.waitFor((mail) => toOf(mail).includes(fan.email) && mail.subject === 'Switchyard 2.0 is out');
    expect(update.text).toContain('Switchyard 2.0 is out: details');
    expect(unsubscribeLinkOf(update)).toContain('.productUpdates.');
    await settle();
    expect(smtp.received.filter((mail) => mail.subject === 'Switchyard 2.0 is out')).toHaveLength(1);
    expect(smtp.received.some((mail) => toOf(mail).includes(plain.email) && mail.subject === 'Switchyard 2.0 is out')).toBe(false);
    expect(await inboxTitles(plain.systemToken)).toContain('Switchyard 2.0 is out');
    expect(await inboxTitles(hidden.systemToken)).not.toContain('Switchyard 2.0 is out');

    // The SMTP server refuses the next mail: it stays in the outbox and the runner sends it again later.
    smtp.refuseNext(1, (mail) => mail.subject === 'Maintenance window');
    expect((await broadcast('Maintenance window')).statusCode).toBe(201);
    await settle();
    expect(smtp.refused()).toBe(1);
    const [row] = (await outboxOf(fan.customerId)).filter((entry) => entry.subject === 'Maintenance window');
    expect(row).toMatchObject({ attempts: 1, sent_at: null });
    expect(row!.last_error).toBeTruthy();
    await advance(2 * MINUTE);
    await smtp.waitFor((mail) => toOf(mail).includes(fan.email) && mail.subject === 'Maintenance window');
    const [sent] = (await outboxOf(fan.customerId)).filter((entry) => entry.subject === 'Maintenance window');
    expect(sent).toMatchObject({ attempts: 2, last_error: null });
    expect(sent!.sent_at).not.toBeNull();
  });

  it('a mail waiting for its retry is dropped when its preference is turned off meanwhile', async () => {
    const keen = await signUp(context, 'keen');
    const fickle = await signUp(context, 'fickle');
    for (const who of [keen, fickle]) await setEngagement(who.systemToken, { email: { productUpdates: true } });
    const recipients = (await context.services.accounts.settings.customersWithEmail('productUpdates')).length;
    smtp.refuseNext(recipients, (mail) => mail.subject === 'Pricing changes');
    const posted = await context.app.inject({
      method: 'POST',
      url: '/api/admin/messages',
      headers: operatorHeaders,
      payload: { all: true, title: 'Pricing changes', body: 'New rates' },
    });
    expect(posted.statusCode).toBe(201);
    await settle();
    await setEngagement(fickle.systemToken, { email: { productUpdates: false } });
    await advance(2 * MINUTE);
    await smtp.waitFor((mail) => toOf(mail).includes(keen.email) && mail.subject === 'Pricing changes');
    await settle();
    expect(smtp.received.some((mail) => toOf(mail).includes(fickle.email) && mail.subject === 'Pricing changes')).toBe(false);
    const [dropped] = await outboxOf(fickle.customerId);
    expect(dropped).toMatchObject({ sent_at: null, last_error: 'preference productUpdates is off' });
    expect(dropped!.given_up_at).not.toBeNull();
  });
});
