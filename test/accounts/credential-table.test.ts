/**
 * The credential table (src/accounts/credential-rules.ts), tried cell by cell through HTTP: the test is generated
 * from the table itself, so a new action or kind is covered the moment it is declared. Each cell holds a
 * credential of one kind and attempts one sensitive action; an allowed cell must succeed, a refused one must be
 * 403 (or the 401/403 the credential always gets) and change nothing: keys, email, password, 2FA and SSO links
 * are compared before and after.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CREDENTIAL_KINDS,
  CREDENTIAL_TABLE,
  credentialTableMarkdown,
  SENSITIVE_ACTIONS,
  type CredentialKind,
  type SensitiveAction,
} from '../../src/accounts/credential-rules.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { createUserKey, signUp, type SignedUp } from '../chassis/support.js';
import { codeAt, cookiesOf, webLogin, withSession } from './support.js';

const RECENT_MINUTES = 15;

interface Attempt {
  method: 'POST' | 'PATCH' | 'DELETE';
  url: string;
  payload?: Record<string, unknown>;
}

/** What each action sends, for an account prepared by `prepare` (a User API Key to change, 2FA to remove…). */
interface Fixture {
  owner: SignedUp;
  userKeyId: number;
  totpSecret?: string;
}

const ATTEMPTS: Record<SensitiveAction, (fixture: Fixture) => Attempt[]> = {
  'mint-sso-link': () => [{ method: 'POST', url: '/api/v1/me/sso-link', payload: {} }],
  'create-key': () => [{ method: 'POST', url: '/api/v1/me/api-keys', payload: { name: 'minted' } }],
  'change-key': (f) => [{ method: 'PATCH', url: `/api/v1/me/api-keys/${f.userKeyId}`, payload: { allowed_models: null, name: 'widened' } }],
  'revoke-key': (f) => [{ method: 'DELETE', url: `/api/v1/me/api-keys/${f.owner.systemTokenId}` }],
  'replace-key': (f) => [{ method: 'POST', url: `/api/v1/me/api-keys/${f.userKeyId}/replace` }],
  'rotate-username-token': () => [{ method: 'POST', url: '/api/v1/me/api-token/rotate' }],
  'change-email': (f) => [
    { method: 'POST', url: '/api/v1/me/email', payload: { email: `taken.${f.owner.email}`, password: f.owner.password } },
  ],
  'change-password': (f) => [
    { method: 'POST', url: '/api/v1/me/password', payload: { current_password: f.owner.password, new_password: 'attacker-password-1' } },
  ],
  'enrol-2fa': () => [{ method: 'POST', url: '/api/v1/me/2fa/setup' }],
  'remove-2fa': (f) => [{ method: 'POST', url: '/api/v1/me/2fa/disable', payload: { password: f.owner.password } }],
};

describe('credential table: every sensitive action against every kind of credential, through HTTP', () => {
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 12));
  let context: TestContext;

  beforeAll(async () => {
    context = await createTestContext({ clock, config: { accounts: { recentAuthMinutes: RECENT_MINUTES } } });
  });
  afterAll(async () => context.close());

  async function prepare(action: SensitiveAction): Promise<Fixture> {
    const owner = await signUp(context, 'cell');
    const userKey = await createUserKey(context, owner, { name: 'narrow' });
    const fixture: Fixture = { owner, userKeyId: userKey.id };
    if (action === 'remove-2fa') {
      const setup = await context.app.inject({ method: 'POST', url: '/api/v1/me/2fa/setup', headers: bearer(owner.systemToken) });
      fixture.totpSecret = setup.json().secret;
      const enabled = await context.app.inject({
        method: 'POST',
        url: '/api/v1/me/2fa/enable',
        headers: bearer(owner.systemToken),
        payload: { code: codeAt(fixture.totpSecret!, clock.nowMs()), password: owner.password },
      });
      expect(enabled.statusCode, enabled.body).toBe(200);
    }
    return fixture;
  }

  /** Headers that present a credential of `kind` for the fixture's account. */
  async function credential(kind: CredentialKind, fixture: Fixture): Promise<Record<string, string>> {
    const { owner } = fixture;
    switch (kind) {
      case 'system-token':
        return bearer(owner.systemToken);
      case 'username-token':
        return bearer(owner.usernameToken);
      case 'user-key':
        return bearer((await createUserKey(context, owner, { name: 'default' })).key);
      case 'restricted-user-key':
        return bearer(
          (
            await createUserKey(context, owner, {
              name: 'restricted',
              allowed_surfaces: ['account'],
              spending_limit_micros: 1,
              spending_period: 'day',
            })
          ).key,
        );
      case 'runtime-key': {
        const issued = await context.services.keys.issue(context.storage.db, {
          customerId: owner.customerId,
          kind: 'wallet',
          role: 'customer',
          name: 'Agent runtime',
          policy: { surfaces: ['gateway'], agentRuntime: true },
        });
        return bearer(issued.plaintext);
      }
      case 'session-recent':
        return withSession(await signIn(fixture));
      case 'session-stale': {
        const session = await signIn(fixture);
        clock.advance((RECENT_MINUTES + 1) * 60_000);
        return withSession(session);
      }
      case 'session-from-link': {
        const minted = await context.app.inject({
          method: 'POST',
          url: '/api/v1/me/sso-link',
          headers: bearer(owner.systemToken),
          payload: {},
        });
        expect(minted.statusCode, minted.body).toBe(201);
        const opened = await context.app.inject({
          method: 'GET',
          url: new URL(minted.json().url).pathname + new URL(minted.json().url).search,
        });
        expect(opened.statusCode).toBe(302);
        const cookies = cookiesOf(opened);
        return { cookie: `sy_session=${cookies.sy_session}`, 'x-csrf-token': cookies.sy_csrf! };
      }
      case 'operator':
        return operatorHeaders;
    }
  }

  /** A password sign-in (with the 2FA step when the fixture turned it on). */
  async function signIn(fixture: Fixture) {
    if (!fixture.totpSecret) return webLogin(context, fixture.owner);
    const first = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/web-login',
      payload: { email: fixture.owner.email, password: fixture.owner.password },
    });
    clock.advance(30_000);
    const second = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/web-login/2fa',
      payload: { challenge: first.json().challenge, code: codeAt(fixture.totpSecret, clock.nowMs()) },
    });
    expect(second.statusCode, second.body).toBe(200);
    const cookies = cookiesOf(second);
    return { cookie: `sy_session=${cookies.sy_session}`, csrf: cookies.sy_csrf!, sessionToken: cookies.sy_session! };
  }

  /** Everything a sensitive action could change, read from the database. */
  async function stateOf(customerId: number) {
    const db = context.storage.db;
    return {
      customer: await db.selectFrom('customers').select(['email', 'password_hash']).where('id', '=', customerId).executeTakeFirst(),
      keys: await db
        .selectFrom('api_keys')
        .select(['id', 'name', 'policy_json', 'revoked_at'])
        .where('customer_id', '=', customerId)
        .where('name', 'not in', ['default', 'restricted', 'Agent runtime'])
        .orderBy('id')
        .execute(),
      totp: await db.selectFrom('totp_credentials').select(['enabled_at', 'secret_enc']).where('customer_id', '=', customerId).execute(),
      ssoLinks: (await db.selectFrom('sso_links').select('id').where('customer_id', '=', customerId).execute()).length,
    };
  }

  it('docs/security.md prints the same table', () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/security.md'), 'utf8');
    expect(doc).toContain(credentialTableMarkdown());
  });

  it('declares every action for every kind (the table is exhaustive)', () => {
    for (const action of SENSITIVE_ACTIONS) {
      for (const kind of CREDENTIAL_TABLE[action]) expect(CREDENTIAL_KINDS).toContain(kind);
    }
    expect(Object.keys(CREDENTIAL_TABLE).sort()).toEqual([...SENSITIVE_ACTIONS].sort());
  });

  for (const action of SENSITIVE_ACTIONS) {
    for (const kind of CREDENTIAL_KINDS) {
      const allowed = CREDENTIAL_TABLE[action].includes(kind);
      it(`${action} with ${kind}: ${allowed ? 'allowed' : 'refused'}`, async () => {
        const fixture = await prepare(action);
        const headers = await credential(kind, fixture);
        const ssoBaseline = (await stateOf(fixture.owner.customerId)).ssoLinks;
        const before = await stateOf(fixture.owner.customerId);
        for (const attempt of ATTEMPTS[action](fixture)) {
          const response = await context.app.inject({ ...attempt, headers, payload: attempt.payload as never });
          if (allowed) {
            expect(response.statusCode, `${attempt.method} ${attempt.url}: ${response.body}`).toBeLessThan(300);
          } else {
            // Refused by the table (403), or earlier by what the credential always lacked: the account surface
            // (the runtime key: 403) or an account at all (operators: 403).
            expect(response.statusCode, `${attempt.method} ${attempt.url}: ${response.body}`).toBe(403);
          }
        }
        const after = await stateOf(fixture.owner.customerId);
        if (allowed) expect(after).not.toEqual(before);
        else expect(after).toEqual({ ...before, ssoLinks: ssoBaseline });
      });
    }
  }

  it('a stale session gets through after confirming the password, and a link session after signing in again', async () => {
    const fixture = await prepare('create-key');
    const session = await signIn(fixture);
    clock.advance((RECENT_MINUTES + 1) * 60_000);
    const refused = await context.app.inject({ method: 'POST', url: '/api/v1/me/api-keys', headers: withSession(session), payload: {} });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ credential: 'session-stale', reauthenticate: '/api/v1/auth/reauthenticate' });
    const wrong = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/reauthenticate',
      headers: withSession(session),
      payload: { password: 'not-it' },
    });
    expect(wrong.statusCode).toBe(422);
    const confirmed = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/reauthenticate',
      headers: withSession(session),
      payload: { password: fixture.owner.password },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const created = await context.app.inject({ method: 'POST', url: '/api/v1/me/api-keys', headers: withSession(session), payload: {} });
    expect(created.statusCode, created.body).toBe(201);
    // Keys never re-authenticate: a User API Key stays refused whatever it sends.
    const key = await createUserKey(context, fixture.owner, { name: 'tool' });
    const keyTries = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/reauthenticate',
      headers: bearer(key.key),
      payload: { password: fixture.owner.password },
    });
    expect(keyTries.statusCode).toBe(400);
  });

  it('a restricted key cannot become the account: no SSO link, so no session and no unrestricted key', async () => {
    const fixture = await prepare('mint-sso-link');
    const restricted = await createUserKey(context, fixture.owner, {
      name: 'restricted',
      allowed_surfaces: ['account'],
      spending_limit_micros: 1,
      spending_period: 'day',
    });
    const link = await context.app.inject({ method: 'POST', url: '/api/v1/me/sso-link', headers: bearer(restricted.key), payload: {} });
    expect(link.statusCode).toBe(403);
    // A link minted before this rule by such a key (its policy stored with it) opens a session just as narrow.
    const { token } = await context.services.accounts.sso.issue(fixture.owner.customerId, { surfaces: ['gateway'], models: ['x'] });
    const opened = await context.app.inject({ method: 'GET', url: `/api/v1/auth/sso?token=${encodeURIComponent(token)}` });
    const cookies = cookiesOf(opened);
    const me = await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: `sy_session=${cookies.sy_session}` } });
    expect(me.statusCode).toBe(403);
  });

  it('an email change mails the old address an undo link that works once and lands in the alerts', async () => {
    const fixture = await prepare('change-email');
    const mails: { to: string; text: string }[] = [];
    const original = context.services.accounts.mailer.send.bind(context.services.accounts.mailer);
    context.services.accounts.mailer.send = async (mail) => {
      mails.push({ to: mail.to, text: mail.text });
      return original(mail);
    };
    try {
      const next = `new.${fixture.owner.email}`;
      const changed = await context.app.inject({
        method: 'POST',
        url: '/api/v1/me/email',
        headers: bearer(fixture.owner.systemToken),
        payload: { email: next, password: fixture.owner.password },
      });
      expect(changed.statusCode, changed.body).toBe(200);
      const undoMail = () => mails.find((mail) => mail.to === fixture.owner.email && mail.text.includes('#email_undo='));
      for (let i = 0; i < 500 && !undoMail(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      const notice = undoMail();
      expect(notice?.text).toContain(next);
      const token = /#email_undo=([A-Za-z0-9_-]+)/.exec(notice!.text)![1]!;
      const alerts = await context.app.inject({
        method: 'GET',
        url: '/api/v1/me/api-key-alerts',
        headers: bearer(fixture.owner.systemToken),
      });
      expect(alerts.json().data.map((alert: { cause: string }) => alert.cause)).toContain('email_changed');
      const session = await webLogin(context, { email: next, password: fixture.owner.password });
      const undo = await context.app.inject({ method: 'POST', url: '/api/v1/auth/email-change/undo', payload: { token } });
      expect(undo.statusCode, undo.body).toBe(200);
      const row = await context.storage.db
        .selectFrom('customers')
        .select('email')
        .where('id', '=', fixture.owner.customerId)
        .executeTakeFirstOrThrow();
      expect(row.email).toBe(fixture.owner.email);
      // Every dashboard session ended with the undo; the link works once.
      const me = await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: session.cookie } });
      expect(me.statusCode).toBe(401);
      const again = await context.app.inject({ method: 'POST', url: '/api/v1/auth/email-change/undo', payload: { token } });
      expect(again.statusCode).toBe(422);
    } finally {
      context.services.accounts.mailer.send = original;
    }
  });
});
