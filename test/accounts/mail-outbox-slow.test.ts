/**
 * A slow SMTP server (it holds its answer longer than the outbox's claim on the mail) must not get the mail
 * twice: the sender keeps its claim while the send runs, so the retry job leaves the row alone, and once the
 * server accepted the mail is sent and never retried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { signUp } from '../chassis/support.js';
import { startSmtp, type Smtp } from '../jobs/support.js';

const MINUTE = 60_000;

describe('mail outbox and a slow SMTP server', () => {
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

  it('a send that outlasts the claim is not sent again by the retry job', async () => {
    const who = await signUp(context, 'slow');
    const { outbox } = context.services.accounts;
    // The sign-up's own mail first, so the held answer is the one of the mail below.
    await smtp.waitFor((mail) => JSON.stringify(mail.to ?? '').includes(who.email));
    const before = smtp.recipients.length;
    const release = smtp.holdNext();
    await outbox.send({ customerId: who.customerId, kind: 'receipt', dedupeKey: 'slow:1', to: who.email, subject: 'Slow', text: 'Once' });
    await smtp.waitFor(() => smtp.recipients.length > before);
    const row = () =>
      context.services.storage.db.selectFrom('mail_outbox').selectAll().where('dedupe_key', '=', 'slow:1').executeTakeFirstOrThrow();
    // Half an hour passes while the server holds its answer; the retry job looks every few minutes.
    for (let i = 0; i < 10; i++) {
      clock.advance(3 * MINUTE);
      for (let wait = 0; wait < 100 && Number((await row()).next_attempt_at) <= clock.nowMs(); wait++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await outbox.retryDue();
    }
    release();
    await outbox.idle();
    expect(smtp.received.filter((mail) => mail.subject === 'Slow')).toHaveLength(1);
    expect(smtp.recipients.length - before).toBe(1);
    expect(await row()).toMatchObject({ attempts: 1, last_error: null });
    expect((await row()).sent_at).not.toBeNull();
    expect(await outbox.retryDue()).toBe(0);
  });
});
