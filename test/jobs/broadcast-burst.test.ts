/**
 * Mail the job runner sends to many customers at once (a product update, the weekly digest) goes out one mail
 * after the other: the job must not open an SMTP connection per customer at the same moment (thousands of
 * customers would be thousands of connections, refused by the server or running the process out of sockets).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';
import { startSmtp, toOf, type Smtp } from './support.js';

const MINUTE = 60_000;

describe('mail to many customers', () => {
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 12));
  let context: TestContext;
  let smtp: Smtp;

  beforeAll(async () => {
    smtp = await startSmtp();
    context = await createTestContext({
      clock,
      config: {
        mail: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false }, from: 'Switchyard <no-reply@example.test>' },
        // Self-service sign-up (an invite would add a mail of its own).
        accounts: { registration: 'open' },
        jobs: { pollIntervalMs: MINUTE, mailRetryIntervalMs: MINUTE, retryBaseMs: MINUTE },
      } as never,
    });
  });
  afterAll(async () => {
    await context.close();
    await smtp.close();
  });

  it('a product update to twelve customers is sent one mail at a time', async () => {
    const fans: SignedUp[] = [];
    for (let i = 0; i < 12; i++) {
      const fan = await signUp(context, `fan${i}`);
      const on = await context.app.inject({
        method: 'PUT',
        url: '/api/v1/customer-engagement',
        headers: bearer(fan.systemToken),
        payload: { email: { productUpdates: true } },
      });
      expect(on.statusCode).toBe(200);
      fans.push(fan);
    }
    // The sign-ups' own mail has gone out before counting.
    for (const fan of fans) await smtp.waitFor((mail) => toOf(mail).includes(fan.email));
    await context.services.accounts.outbox.idle();
    smtp.resetSessions();
    const posted = await context.app.inject({
      method: 'POST',
      url: '/api/admin/messages',
      headers: operatorHeaders,
      payload: { all: true, title: 'Burst', body: 'To everyone who wants it' },
    });
    expect(posted.statusCode).toBe(201);
    for (const fan of fans) await smtp.waitFor((mail) => toOf(mail).includes(fan.email) && mail.subject === 'Burst');
    await context.services.jobs.idle();
    expect(smtp.received.filter((mail) => mail.subject === 'Burst')).toHaveLength(12);
    expect(smtp.maxSessions()).toBe(1);
  });
});
