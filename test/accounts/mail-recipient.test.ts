/**
 * A customer's stored address is the one recipient of the mail the service sends them. Registration takes any
 * address without blanks and with one `@`, which lets through `me,victim@…` and `me<victim@…>`: a mail library
 * handed such a string parses it as a list or a display name and mails someone else (an existing customer's
 * address, whatever account holds it). The mail goes to the address as stored, quoted, and never elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { randomBase62 } from '../../src/kernel/ids.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { solvedHumanCheck } from '../helpers/human-check.js';
import { startSmtp, type Smtp } from '../jobs/support.js';

describe('mail recipients', () => {
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
      } as never,
    });
  });
  afterAll(async () => {
    await context.close();
    await smtp.close();
  });

  it('an address that reads as a list or a display name is mailed as one quoted address, never to the one inside it', async () => {
    const victim = `victim-${randomBase62(8).toLowerCase()}@example.test`;
    for (const email of [`me,${victim}`, `me<${victim}>`]) {
      const registered = await context.app.inject({
        method: 'POST',
        url: '/api/v1/customer/register',
        payload: { email, password: `pw-${randomBase62(16)}`, humanCheck: await solvedHumanCheck(context) },
      });
      expect(registered.statusCode, registered.body).toBe(201);
      const customerId = registered.json().customer.id as number;
      const token = registered.json().api_key as string;
      // Mail of the service's own (product updates through the outbox) and security mail (a password reset).
      const on = await context.app.inject({
        method: 'PUT',
        url: '/api/v1/customer-engagement',
        headers: bearer(token),
        payload: { email: { productUpdates: true } },
      });
      expect(on.statusCode).toBe(200);
      await context.services.accounts.outbox.send({ customerId, kind: 'product_update', to: email, subject: 'News', text: 'News' });
      await context.services.accounts.outbox.idle();
      const reset = await context.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', payload: { email } });
      expect(reset.statusCode, reset.body).toBeLessThan(300);
    }
    await smtp.waitFor(() => smtp.recipients.length >= 3);
    expect(smtp.recipients).not.toContain(victim);
    for (const recipient of smtp.recipients) expect(recipient).toBe(`"me,${victim.split('@')[0]}"@example.test`);
  });
});
