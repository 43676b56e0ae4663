/**
 * Who may register (`accounts.registration`), invites and password-set links sent from the console, and the mail
 * outbox: without SMTP every mail is kept for the operator; with SMTP (a real smtp-server) it is sent instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { dialects, openTestStorage } from '../helpers/databases.js';
import { solvedHumanCheck } from '../helpers/human-check.js';
import { startSmtp, type Smtp } from '../jobs/support.js';

type Registration = 'open' | 'invite' | 'closed';

const tokenOf = (link: string, name: 'invite' | 'token') => new RegExp(`#${name}=([A-Za-z0-9_-]+)`).exec(link)![1]!;

function helpers(context: () => TestContext) {
  const inject = (method: 'GET' | 'POST', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    context().app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
  return {
    register: async (body: Record<string, unknown>) =>
      inject('POST', '/api/v1/customer/register', { password: 'a long password', ...body }),
    invite: (email: string) => inject('POST', '/api/admin/invites', { email }, operatorHeaders),
    outbox: async (to?: string) =>
      (await inject('GET', `/api/admin/outbox${to ? `?to=${encodeURIComponent(to)}` : ''}`, undefined, operatorHeaders)).json(),
    count: async (table: 'customers' | 'invites') =>
      Number(
        (
          await context()
            .storage.db.selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    signIn: (email: string, password: string) => inject('POST', '/api/v1/auth/web-login', { email, password }),
  };
}

describe.each(dialects)('registration modes and invites (%s)', (dialect) => {
  const contexts: Partial<Record<Registration, TestContext>> = {};
  const clock = new FakeClock(Date.UTC(2026, 10, 1, 12));
  beforeAll(async () => {
    for (const registration of ['open', 'invite', 'closed'] as const) {
      contexts[registration] = await createTestContext({
        clock,
        storage: await openTestStorage(dialect),
        config: { accounts: { registration, inviteTtlHours: 24 } } as never,
      });
    }
  });
  afterAll(async () => {
    for (const context of Object.values(contexts)) await context?.close();
  });

  it('tells the sign-in page the mode, and the default is invite', async () => {
    for (const registration of ['open', 'invite', 'closed'] as const) {
      const options = await contexts[registration]!.app.inject({ method: 'GET', url: '/api/v1/auth/options' });
      expect(options.json().registration).toBe(registration);
    }
    const defaults = await createTestContext({ storage: await openTestStorage(dialect) });
    try {
      expect(defaults.config.accounts.registration).toBe('invite');
    } finally {
      await defaults.close();
    }
  });

  it('open: anyone with a solved human check registers', async () => {
    const context = contexts.open!;
    const { register } = helpers(() => context);
    const created = await register({ email: 'open.one@example.test', humanCheck: await solvedHumanCheck(context) });
    expect(created.statusCode, created.body).toBe(201);
  });

  it('closed: every sign-up is 403 in the /api error shape and creates nothing; an invite cannot be made', async () => {
    const context = contexts.closed!;
    const { register, invite, count } = helpers(() => context);
    const before = await count('customers');
    const refused = await register({ email: 'closed.one@example.test', humanCheck: await solvedHumanCheck(context) });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'FORBIDDEN', registration: 'closed', detail: expect.stringContaining('closed') });
    expect(refused.json().request_id).toEqual(expect.any(String));
    const withInvite = await register({ email: 'closed.one@example.test', invite: 'x'.repeat(43) });
    expect(withInvite.statusCode).toBe(403);
    expect((await invite('closed.two@example.test')).statusCode).toBe(409);
    expect(await count('customers')).toBe(before);
    // The operator still creates accounts; a password-set link lets the customer sign in.
    const made = await context.app.inject({
      method: 'POST',
      url: '/api/admin/customers',
      headers: operatorHeaders,
      payload: { email: 'made.by.operator@example.test' },
    });
    expect(made.statusCode).toBe(201);
    const link = await context.app.inject({
      method: 'POST',
      url: `/api/admin/customers/${made.json().customer.id}/password-link`,
      headers: operatorHeaders,
    });
    expect(link.statusCode).toBe(201);
    expect(link.json()).toMatchObject({ email: 'made.by.operator@example.test', delivery: 'outbox' });
    const set = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password-reset/confirm',
      payload: { token: tokenOf(link.json().link, 'token'), password: 'chosen password 1' },
    });
    expect(set.statusCode, set.body).toBe(200);
    const signedIn = await helpers(() => context).signIn('made.by.operator@example.test', 'chosen password 1');
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(signedIn.json().two_factor_required).toBe(false);
  });

  it('invite: 403 without an invite; the invite lets exactly its email register, once, before it expires', async () => {
    const context = contexts.invite!;
    const { register, invite, count } = helpers(() => context);
    const uninvited = await register({ email: 'ada@example.test', humanCheck: await solvedHumanCheck(context) });
    expect(uninvited.statusCode).toBe(403);
    expect(uninvited.json()).toMatchObject({ code: 'FORBIDDEN', registration: 'invite' });

    const sent = await invite('Ada@Example.test');
    expect(sent.statusCode, sent.body).toBe(201);
    expect(sent.json()).toMatchObject({ email: 'ada@example.test', delivery: 'outbox', used_at: null });
    expect(sent.json().link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login\.html#invite=[\w-]{43}&email=ada%40example\.test$/);
    const token = tokenOf(sent.json().link, 'invite');

    const before = await count('customers');
    const otherEmail = await register({ email: 'mallory@example.test', invite: token });
    expect(otherEmail.statusCode).toBe(422);
    expect(otherEmail.json().detail[0].loc).toEqual(['body', 'invite']);
    expect((await register({ email: 'ada@example.test', invite: 'forged'.repeat(7) })).statusCode).toBe(422);
    expect(await count('customers')).toBe(before);

    const created = await register({ email: 'ada@example.test', invite: token });
    expect(created.statusCode, created.body).toBe(201);
    // Used: the address now has its account (409), and the invite row names it.
    expect((await register({ email: 'ada@example.test', invite: token })).statusCode).toBe(409);
    const listed = await context.app.inject({ method: 'GET', url: '/api/admin/invites', headers: operatorHeaders });
    expect(listed.json().data.find((row: { email: string }) => row.email === 'ada@example.test')).toMatchObject({
      customer_id: created.json().customer.id,
      used_at: expect.any(String),
    });
    expect((await helpers(() => context).signIn('ada@example.test', 'a long password')).statusCode).toBe(200);

    // An existing account cannot be invited again; an invite past its lifetime is refused.
    expect((await invite('ada@example.test')).statusCode).toBe(409);
    const late = await invite('late@example.test');
    clock.advance(24 * 3_600_000 + 1);
    expect((await register({ email: 'late@example.test', invite: tokenOf(late.json().link, 'invite') })).statusCode).toBe(422);
  });

  it('without SMTP every mail lands in the outbox the operator reads, links included, and the log says where', async () => {
    const context = contexts.invite!;
    const { invite, outbox } = helpers(() => context);
    const sent = (await invite('outbox.reader@example.test')).json();
    const page = await outbox('outbox.reader@example.test');
    expect(page.smtp).toBe(false);
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({ to: 'outbox.reader@example.test', subject: 'You are invited to Switchyard' });
    expect(page.data[0].text).toContain(sent.link);
    // The sign-up's own mail (the verification link) goes there too.
    const created = await helpers(() => context).register({
      email: 'outbox.reader@example.test',
      invite: tokenOf(sent.link, 'invite'),
    });
    expect(created.statusCode).toBe(201);
    // The verification mail is written off the sign-up's request path, so it may land just after the answer.
    await expect.poll(async () => (await outbox('outbox.reader@example.test')).data.length).toBe(2);
    const after = await outbox('outbox.reader@example.test');
    expect(after.data[0].text).toMatch(/verify-email\?token=/);
    // A password reset requested by the customer reaches the outbox as well.
    await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password-reset/request',
      payload: { email: 'outbox.reader@example.test' },
    });
    await expect.poll(async () => (await outbox('outbox.reader@example.test')).data.length).toBe(3);
    expect(context.logs.join('')).toContain('mail written to the outbox');
    // Operator only.
    expect((await context.app.inject({ method: 'GET', url: '/api/admin/outbox' })).statusCode).toBe(401);
  });
});

describe('with SMTP', () => {
  let smtp: Smtp;
  let context: TestContext;
  beforeAll(async () => {
    smtp = await startSmtp();
    context = await createTestContext({ config: { mail: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false } } } as never });
  });
  afterAll(async () => {
    await context.close();
    await smtp.close();
  });

  it('mails the invite and the password-set link and keeps nothing in the outbox', async () => {
    const { invite, outbox } = helpers(() => context);
    const sent = await invite('mailed@example.test');
    expect(sent.json().delivery).toBe('smtp');
    const mail = smtp.received.find((message) => message.subject === 'You are invited to Switchyard')!;
    expect(mail.text).toContain(sent.json().link);
    expect((mail.to as { text: string }).text).toBe('mailed@example.test');
    const made = await context.app.inject({
      method: 'POST',
      url: '/api/admin/customers',
      headers: operatorHeaders,
      payload: { email: 'console.made@example.test' },
    });
    const link = await context.app.inject({
      method: 'POST',
      url: `/api/admin/customers/${made.json().customer.id}/password-link`,
      headers: operatorHeaders,
    });
    expect(link.json().delivery).toBe('smtp');
    expect(smtp.received.some((message) => message.text?.includes(link.json().link))).toBe(true);
    expect((await outbox()).data).toEqual([]);
    expect((await outbox()).smtp).toBe(true);
  });

  it('a send that fails is reported, and the link is still handed to the operator', async () => {
    await smtp.close();
    const sent = await helpers(() => context).invite('unreachable@example.test');
    expect(sent.statusCode).toBe(201);
    expect(sent.json().delivery).toBe('failed');
    expect(sent.json().link).toContain('#invite=');
  });
});
