import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeReturnTo } from '../../src/accounts/sso.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp, uniqueEmail, type SignedUp } from '../chassis/support.js';
import { cookiesOf } from './support.js';
import { FOREIGN_RETURN_TO, staysOn } from '../helpers/redirect-spellings.js';

describe('signed SSO links', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.UTC(2026, 5, 1));
  let alice: SignedUp;

  beforeAll(async () => {
    context = await createTestContext({ clock });
    alice = await signUp(context, 'alice');
  });
  afterAll(async () => context.close());

  const issue = async (body: Record<string, unknown> = {}) => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/sso-link',
      headers: bearer(alice.systemToken),
      payload: body,
    });
    expect(response.statusCode, response.body).toBe(201);
    const url = new URL(response.json().url as string);
    expect(new Date(response.json().expires_at).getTime() - clock.nowMs()).toBeLessThanOrEqual(5 * 60_000);
    return { token: url.searchParams.get('token')!, path: `${url.pathname}${url.search}` };
  };
  const open = (query: string) => context.app.inject({ method: 'GET', url: `/api/v1/auth/sso?${query}` });

  it('opens a session once and redirects to the default dashboard', async () => {
    const { path } = await issue();
    const first = await context.app.inject({ method: 'GET', url: path });
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toBe('/dashboard.html');
    const cookie = cookiesOf(first).sy_session!;
    expect(
      (await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: `sy_session=${cookie}` } })).json().customer.id,
    ).toBe(alice.customerId);
    const second = await context.app.inject({ method: 'GET', url: path });
    expect(second.statusCode).toBe(302);
    expect(second.headers.location).toMatch(/error=sso_link_invalid/);
    expect(cookiesOf(second).sy_session).toBeUndefined();
  });

  it('refuses every single-byte change of the token', async () => {
    const { token } = await issue();
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    for (let index = 0; index < token.length; index++) {
      const original = token[index]!;
      const replacement = alphabet[(alphabet.indexOf(original) + 1 + index) % alphabet.length]!;
      const changed = token.slice(0, index) + (replacement === original ? 'A' : replacement) + token.slice(index + 1);
      if (changed === token) continue;
      expect(await context.services.accounts.sso.redeem(changed), `byte ${index}`).toBeNull();
    }
    expect(await context.services.accounts.sso.redeem(`${token}A`)).toBeNull();
    expect(await context.services.accounts.sso.redeem(token.slice(0, -1))).toBeNull();
    // The untouched token still works (the changed ones did not use it up).
    const response = await open(`token=${encodeURIComponent(token)}`);
    expect(cookiesOf(response).sy_session).toBeTruthy();
  });

  it('expires after 5 minutes', async () => {
    const { token } = await issue();
    clock.advance(5 * 60_000 + 1);
    const late = await open(`token=${encodeURIComponent(token)}`);
    expect(late.headers.location).toMatch(/error=sso_link_invalid/);
  });

  it('returnTo: own paths kept, anything else falls back to the default', async () => {
    const { token } = await issue();
    const own = await open(`token=${encodeURIComponent(token)}&returnTo=${encodeURIComponent('/billing.html?tab=cards')}`);
    expect(own.headers.location).toBe('/billing.html?tab=cards');
    for (const target of [
      'https://evil.example/x',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      'evil.example',
      '/%2F%2Fevil.example',
    ]) {
      const { token: next } = await issue();
      const response = await open(`token=${encodeURIComponent(next)}&returnTo=${encodeURIComponent(target)}`);
      const location = String(response.headers.location);
      expect(location.startsWith('/') && !location.startsWith('//'), `${target} -> ${location}`).toBe(true);
      expect(new URL(location, 'http://self.invalid').origin).toBe('http://self.invalid');
    }
    expect(safeReturnTo('https://evil.example')).toBe('/dashboard.html');
    expect(safeReturnTo('//evil.example')).toBe('/dashboard.html');
  });

  it('returnTo: every spelling that normalises or decodes to another host stays on the site', async () => {
    for (const target of FOREIGN_RETURN_TO) {
      const { token } = await issue();
      const response = await open(`token=${encodeURIComponent(token)}&returnTo=${encodeURIComponent(target)}`);
      expect(response.statusCode).toBe(302);
      const location = String(response.headers.location);
      expect(location, JSON.stringify(target)).toBe('/dashboard.html');
      expect(staysOn('https://site.example', location)).toBe(true);
      expect(safeReturnTo(target), JSON.stringify(target)).toBe('/dashboard.html');
    }
    // Own paths keep their query and fragment, normalised.
    expect(safeReturnTo('/x/../billing.html?tab=cards#top')).toBe('/billing.html?tab=cards#top');
    expect(safeReturnTo('/dashboard.html#/keys')).toBe('/dashboard.html#/keys');
  });
});

describe('human check', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.UTC(2026, 5, 1));

  beforeAll(async () => {
    context = await createTestContext({
      clock,
      config: { accounts: { humanCheck: { requiredFor: ['register', 'web-login'], webLoginAfterFailures: 2 } } } as never,
    });
  });
  afterAll(async () => context.close());

  const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
  const challenge = async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/v1/auth/human-check' });
    expect(response.statusCode).toBe(200);
    const { id, question } = response.json();
    const [, a, b] = /What is (\w+) plus (\w+)\?/.exec(question)!;
    return { id: id as string, answer: String(WORDS.indexOf(a!) + WORDS.indexOf(b!)) };
  };
  const register = (payload: Record<string, unknown>) =>
    context.app.inject({
      method: 'POST',
      url: '/api/v1/customer/register',
      payload: { email: uniqueEmail('hc'), password: 'password-123456', ...payload },
    });

  it('registration requires a right answer; wrong and reused answers are 422 naming the field', async () => {
    const missing = await register({});
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0].loc).toEqual(['body', 'humanCheckId']);

    const wrongCheck = await challenge();
    const wrong = await register({ humanCheckId: wrongCheck.id, humanCheckAnswer: String(Number(wrongCheck.answer) + 1) });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().detail[0].loc).toEqual(['body', 'humanCheckAnswer']);
    // Checked once: the right answer after a wrong one is refused too.
    expect((await register({ humanCheckId: wrongCheck.id, humanCheckAnswer: wrongCheck.answer })).statusCode).toBe(422);

    const right = await challenge();
    expect((await register({ humanCheckId: right.id, humanCheckAnswer: right.answer })).statusCode).toBe(201);
    const reused = await register({ humanCheckId: right.id, humanCheckAnswer: right.answer });
    expect(reused.statusCode).toBe(422);
    expect(reused.json().detail[0].loc).toEqual(['body', 'humanCheckId']);

    const stale = await challenge();
    clock.advance(10 * 60_000 + 1);
    expect((await register({ humanCheckId: stale.id, humanCheckAnswer: stale.answer })).statusCode).toBe(422);
  });

  it('web login asks for a human check after repeated failures', async () => {
    const right = await challenge();
    const email = uniqueEmail('wl');
    expect(
      (
        await context.app.inject({
          method: 'POST',
          url: '/api/v1/customer/register',
          payload: { email, password: 'password-123456', humanCheckId: right.id, humanCheckAnswer: right.answer },
        })
      ).statusCode,
    ).toBe(201);
    const login = (payload: Record<string, unknown>) =>
      context.app.inject({ method: 'POST', url: '/api/v1/auth/web-login', payload: { email, ...payload } });
    expect((await login({ password: 'wrong-1' })).statusCode).toBe(401);
    expect((await login({ password: 'wrong-2' })).statusCode).toBe(401);
    const needsCheck = await login({ password: 'password-123456' });
    expect(needsCheck.statusCode).toBe(422);
    expect(needsCheck.json().detail[0].loc).toEqual(['body', 'humanCheckId']);
    const solved = await challenge();
    expect((await login({ password: 'password-123456', humanCheckId: solved.id, humanCheckAnswer: solved.answer })).statusCode).toBe(200);
  });
});
