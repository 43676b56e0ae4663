import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';
import { webLogin } from './support.js';

/** The first reset mail received after the first `before` mails. */
async function nextResetOf(received: ParsedMail[], before: number): Promise<ParsedMail> {
  for (let i = 0; i < 1000; i++) {
    const found = received.slice(before).find((mail) => /reset/i.test(mail.subject ?? ''));
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no reset mail arrived');
}

/** A real local SMTP server collecting parsed mail. */
async function startSmtp() {
  const received: ParsedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push(mail);
          for (const waiter of waiters.splice(0)) waiter();
          callback();
        })
        .catch(callback);
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    async next(count: number): Promise<ParsedMail> {
      while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return received[count - 1]!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function tokenFrom(mail: ParsedMail): string {
  const match = /#token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '');
  expect(match, mail.text).toBeTruthy();
  return match![1]!;
}

describe('password reset by mail (real SMTP server)', () => {
  let context: TestContext;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const nextReset = (before: number) => nextResetOf(smtp.received, before);
  const clock = new FakeClock(Date.UTC(2026, 5, 1));
  let alice: SignedUp;

  beforeAll(async () => {
    smtp = await startSmtp();
    context = await createTestContext({
      clock,
      config: {
        mail: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false }, from: 'Switchyard <no-reply@example.test>' },
      } as never,
    });
    alice = await signUp(context, 'alice');
  });
  afterAll(async () => {
    await context.close();
    await smtp.close();
  });

  const request = (email: string) => context.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', payload: { email } });
  const confirm = (token: string, password: string) =>
    context.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/confirm', payload: { token, password } });

  it('answers known and unknown emails identically, and mails only the known one', async () => {
    const before = smtp.received.length;
    const known = await request(alice.email);
    const unknown = await request('nobody.at.all@example.test');
    expect(known.statusCode).toBe(202);
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.body).toBe(known.body);
    const mail = await nextReset(before);
    expect(mail.to && 'text' in mail.to ? mail.to.text : '').toContain(alice.email);
    expect(tokenFrom(mail).length).toBeGreaterThanOrEqual(43); // 256 bits, base64url
    // Only the known address got a reset mail (sign-up's verification mail may arrive meanwhile).
    expect(smtp.received.slice(before).filter((received) => /reset/i.test(received.subject ?? ''))).toHaveLength(1);
    expect(smtp.received.some((received) => JSON.stringify(received.to).includes('nobody.at.all'))).toBe(false);
  });

  it('the link sets a new password once, ends every dashboard session and keeps API keys working', async () => {
    const sessionA = await webLogin(context, alice);
    const sessionB = await webLogin(context, alice);
    const before = smtp.received.length;
    await request(alice.email);
    const token = tokenFrom(await nextReset(before));

    const weak = await confirm(token, 'short');
    expect(weak.statusCode).toBe(422);
    const newPassword = 'a-brand-new-password-1';
    const done = await confirm(token, newPassword);
    expect(done.statusCode, done.body).toBe(200);

    for (const session of [sessionA, sessionB]) {
      expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: session.cookie } })).statusCode).toBe(401);
    }
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(alice.systemToken) })).statusCode).toBe(200);
    expect(
      (
        await context.app.inject({
          method: 'POST',
          url: '/api/v1/auth/web-login',
          payload: { email: alice.email, password: alice.password },
        })
      ).statusCode,
    ).toBe(401);
    await webLogin(context, { email: alice.email, password: newPassword });
    alice.password = newPassword;

    const reuse = await confirm(token, 'yet-another-password-2');
    expect(reuse.statusCode).toBe(422);
    expect(reuse.json().detail[0].loc).toEqual(['body', 'token']);
  });

  it('a link older than 30 minutes is refused (fake clock)', async () => {
    const before = smtp.received.length;
    await request(alice.email);
    const token = tokenFrom(await nextReset(before));
    clock.advance(30 * 60_000 + 1);
    expect((await confirm(token, 'too-late-password-3')).statusCode).toBe(422);
  });

  it('a forged token is refused', async () => {
    expect((await confirm('A'.repeat(43), 'forged-password-4')).statusCode).toBe(422);
  });
});
