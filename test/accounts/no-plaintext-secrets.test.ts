import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp } from '../chassis/support.js';
import { codeAt, cookiesOf, webLogin, withSession } from './support.js';

describe('no plaintext secret in the database or the logs', () => {
  let context: TestContext;
  let smtp: SMTPServer;
  const mails: ParsedMail[] = [];
  const clock = new FakeClock(Date.UTC(2026, 5, 1));

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        simpleParser(stream).then((mail) => {
          mails.push(mail);
          callback();
        }, callback);
      },
    });
    smtp.listen(0, '127.0.0.1');
    await once(smtp.server, 'listening');
    const port = (smtp.server.address() as AddressInfo).port;
    context = await createTestContext({ clock, config: { mail: { smtp: { host: '127.0.0.1', port, secure: false } } } as never });
  });
  afterAll(async () => {
    await context.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('session ids, CSRF tokens, 2FA challenges, TOTP secrets, reset tokens and SSO tokens are stored only hashed or sealed', async () => {
    const secrets: Record<string, string> = {};
    const alice = await signUp(context, 'alice');
    const dashboard = await webLogin(context, alice);
    secrets.session = dashboard.sessionToken;
    secrets.csrf = dashboard.csrf;
    await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: dashboard.cookie } });
    await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/profile-name',
      headers: withSession(dashboard),
      payload: { first_name: 'A', surname: 'B' },
    });
    await context.app.inject({ method: 'GET', url: '/v1/models', headers: { cookie: dashboard.cookie } });

    const setup = (await context.app.inject({ method: 'POST', url: '/api/v1/me/2fa/setup', headers: withSession(dashboard) })).json();
    secrets.totp = setup.secret;
    await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/2fa/enable',
      headers: withSession(dashboard),
      payload: { code: codeAt(setup.secret, clock.nowMs()), password: alice.password },
    });
    clock.advance(60_000);
    const challenge = (
      await context.app.inject({ method: 'POST', url: '/api/v1/auth/web-login', payload: { email: alice.email, password: alice.password } })
    ).json().challenge;
    secrets.challenge = challenge;
    const second = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/web-login/2fa',
      payload: { challenge, code: codeAt(setup.secret, clock.nowMs()) },
    });
    expect(second.statusCode, second.body).toBe(200);
    secrets.secondSession = cookiesOf(second).sy_session!;

    await context.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', payload: { email: alice.email } });
    // Alert mail (2FA turned on) may come first: the reset mail is the one with the link.
    const resetMail = () => mails.find((mail) => /#token=/.test(mail.text ?? ''));
    for (let i = 0; i < 500 && !resetMail(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const reset = /#token=([A-Za-z0-9_-]+)/.exec(resetMail()!.text ?? '')![1]!;
    secrets.reset = reset;

    const sso = await context.app.inject({ method: 'POST', url: '/api/v1/me/sso-link', headers: bearer(alice.systemToken), payload: {} });
    expect(sso.statusCode, sso.body).toBe(201);
    secrets.sso = new URL(sso.json().url).searchParams.get('token')!;
    await context.app.inject({ method: 'GET', url: `/api/v1/auth/sso?token=${encodeURIComponent(secrets.sso)}` });
    await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password-reset/confirm',
      payload: { token: reset, password: 'password-after-reset' },
    });

    for (const [name, value] of Object.entries(secrets)) expect(value.length, name).toBeGreaterThanOrEqual(20);

    // Every row of every table, as text.
    const tables = await context.storage.db.introspection.getTables();
    let dump = '';
    for (const table of tables) {
      const rows = await sql`select * from ${sql.table(table.name)}`.execute(context.storage.db);
      dump += JSON.stringify(rows.rows);
    }
    const logs = context.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(secrets)) {
      expect(dump.includes(value), `${name} in the database`).toBe(false);
      expect(logs.includes(value), `${name} in the logs`).toBe(false);
    }
  });

  it('without SMTP, mail goes to the outbox and the log names no link unless mail.logLinks is set', async () => {
    const local = await createTestContext({ clock });
    try {
      const bob = await signUp(local, 'bob');
      await local.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', payload: { email: bob.email } });
      for (let i = 0; i < 500 && !local.logs.join('').includes('Reset your Switchyard password'); i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      const logs = local.logs.join('\n');
      expect(logs).toContain('mail written to the outbox');
      expect(logs).not.toMatch(/token=|invite=/);
    } finally {
      await local.close();
    }
    const opted = await createTestContext({ clock, config: { mail: { logLinks: true } } as never });
    try {
      const carol = await signUp(opted, 'carol');
      await opted.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', payload: { email: carol.email } });
      for (let i = 0; i < 500 && !opted.logs.join('').includes('#token='); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(opted.logs.join('\n')).toMatch(/#token=[A-Za-z0-9_-]{43}/);
    } finally {
      await opted.close();
    }
  });
});
