import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeReturnTo } from '../../src/accounts/sso.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp, uniqueEmail, type SignedUp } from '../chassis/support.js';
import { cookiesOf } from './support.js';
import { FOREIGN_RETURN_TO, staysOn } from '../helpers/redirect-spellings.js';
import { solvedHumanCheck, solveHumanCheckChallenge } from '../helpers/human-check.js';
import { createChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';

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

describe('human check (ALTCHA proof of work)', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.UTC(2026, 5, 1));

  beforeAll(async () => {
    context = await createTestContext({
      clock,
      config: {
        accounts: {
          registration: 'open',
          humanCheck: { requiredFor: ['register', 'web-login'], webLoginAfterFailures: 2, cost: 10, maxCounter: 400 },
        },
      } as never,
    });
  });
  afterAll(async () => context.close());

  const fetchChallenge = async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/v1/auth/human-check' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    return response.json() as Challenge;
  };
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
  const register = (payload: Record<string, unknown>) =>
    context.app.inject({
      method: 'POST',
      url: '/api/v1/customer/register',
      payload: { email: uniqueEmail('hc'), password: 'password-123456', ...payload },
    });
  const refusedOn = async (payload: Record<string, unknown>) => {
    const response = await register(payload);
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().detail[0].loc).toEqual(['body', 'humanCheck']);
  };

  it('registration requires a solved challenge: missing, unsolved, forged, reused and stale ones are 422', async () => {
    await refusedOn({});
    await refusedOn({ humanCheck: 'not base64 json' });

    // No work done: a guessed counter does not derive the hidden key.
    const unsolved = await fetchChallenge();
    await refusedOn({ humanCheck: encode({ challenge: unsolved, solution: { counter: 0, derivedKey: '00'.repeat(32) } }) });

    // A challenge made up by the client (cheap, signed with its own key) is refused, and so is ours with its
    // parameters lowered after signing.
    const own = await createChallenge({ algorithm: 'PBKDF2/SHA-256', cost: 1, counter: 3, deriveKey, hmacSignatureSecret: 'guessed' });
    await refusedOn({ humanCheck: await solveHumanCheckChallenge(own) });
    const ours = await fetchChallenge();
    const lowered = await createChallenge({ algorithm: 'PBKDF2/SHA-256', cost: 1, counter: 3, deriveKey });
    await refusedOn({
      humanCheck: await solveHumanCheckChallenge({
        ...lowered,
        signature: ours.signature,
        parameters: { ...lowered.parameters, data: ours.parameters.data },
      }),
    });

    const solved = await solvedHumanCheck(context);
    expect((await register({ humanCheck: solved })).statusCode).toBe(201);
    await refusedOn({ humanCheck: solved });

    const stale = await solvedHumanCheck(context);
    clock.advance(10 * 60_000 + 1);
    await refusedOn({ humanCheck: stale });
  });

  it('web login asks for a human check after repeated failures', async () => {
    const email = uniqueEmail('wl');
    expect((await register({ email, humanCheck: await solvedHumanCheck(context) })).statusCode).toBe(201);
    const login = (payload: Record<string, unknown>) =>
      context.app.inject({ method: 'POST', url: '/api/v1/auth/web-login', payload: { email, ...payload } });
    expect((await login({ password: 'wrong-1' })).statusCode).toBe(401);
    expect((await login({ password: 'wrong-2' })).statusCode).toBe(401);
    const needsCheck = await login({ password: 'password-123456' });
    expect(needsCheck.statusCode).toBe(422);
    expect(needsCheck.json().detail[0].loc).toEqual(['body', 'humanCheck']);
    expect((await login({ password: 'password-123456', humanCheck: await solvedHumanCheck(context) })).statusCode).toBe(200);
  });
});
