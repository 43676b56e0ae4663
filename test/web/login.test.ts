/**
 * The sign-in page when the service asks for more: a human check after a failed web login, and the
 * identity-provider button once an issuer is configured (what `GET /api/v1/auth/options` tells the page).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, seriousAccessibilityViolations, type BrowserSession } from '../helpers/browser.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { ensureWebBuilt } from '../helpers/web.js';
import { FOREIGN_RETURN_TO, staysOn } from '../helpers/redirect-spellings.js';
import { solvedHumanCheck } from '../helpers/human-check.js';
import { referralCodeOf } from '../../src/promotions/referral.js';

const EMAIL = 'checked@example.com';
const PASSWORD = 'checked password 1';

let ctx: TestContext;
let browser: BrowserSession;
let page: Page;

beforeAll(async () => {
  await ensureWebBuilt();
  ctx = await createTestContext({
    config: {
      accounts: {
        registration: 'open',
        humanCheck: { requiredFor: ['web-login'], webLoginAfterFailures: 1, cost: 100, maxCounter: 2_000 },
      },
      idp: { issuer: 'https://idp.example.test', clientId: 'switchyard', clientSecret: 'switchyard-client-secret-0123456789' },
    } as never,
  });
  const registered = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/customer/register',
    payload: { email: EMAIL, password: PASSWORD, humanCheck: await solvedHumanCheck(ctx) },
  });
  expect(registered.statusCode, registered.body).toBe(201);
  browser = await openBrowser({ baseURL: await ctx.listen() });
  page = browser.page;
  page.setDefaultTimeout(10_000);
});

afterAll(async () => {
  await browser?.close();
  await ctx?.close();
});

describe('sign-in page with a human check after failures and an identity provider', () => {
  it('reports both, and the registration mode, to the page', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/v1/auth/options' });
    expect(response.json()).toEqual({
      identity_provider: true,
      registration: 'open',
      human_check: { register: false, promotion: false, idp: false, web_login: true },
    });
  });

  it('offers the identity provider with the same returnTo, and only own paths as returnTo', async () => {
    await page.goto('/login.html?returnTo=%2Fdashboard.html%23%2Fmoney');
    const button = page.getByRole('link', { name: 'Continue with your identity provider' });
    await button.waitFor();
    expect(await button.getAttribute('href')).toBe(`/api/v1/auth/idp/start?returnTo=${encodeURIComponent('/dashboard.html#/money')}`);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.goto('/login.html?returnTo=https%3A%2F%2Fevil.example%2F');
    await button.waitFor();
    expect(await button.getAttribute('href')).toBe(`/api/v1/auth/idp/start?returnTo=${encodeURIComponent('/dashboard.html')}`);
  });

  it('asks the human check after a failed attempt and signs in once it is answered', async () => {
    await page.goto('/login.html?returnTo=%2Fdashboard.html%23%2Fsettings');
    await page.getByLabel('Email or username').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/invalid/i);
    expect(await page.getByTestId('human-check').count()).toBe(0);

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The widget appears and solves its proof of work; signing in again then succeeds.
    await page.getByTestId('human-check').locator('altcha-widget').waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('human check');
    expect(await page.context().cookies()).not.toContainEqual(expect.objectContaining({ name: 'sy_session' }));
    await page.waitForFunction(
      () => (document.querySelector('altcha-widget') as (Element & { getState?: () => string }) | null)?.getState?.() === 'verified',
      undefined,
      { timeout: 60_000 },
    );
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard\.html#\/settings$/);
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  });
});

describe('sign-in page redirects', () => {
  it('keeps every foreign returnTo spelling on the site, by the same rule as the server', async () => {
    const button = page.getByRole('link', { name: 'Continue with your identity provider' });
    for (const target of FOREIGN_RETURN_TO) {
      await page.goto(`/login.html?returnTo=${encodeURIComponent(target)}`);
      await button.waitFor();
      expect(await button.getAttribute('href'), JSON.stringify(target)).toBe(
        `/api/v1/auth/idp/start?returnTo=${encodeURIComponent('/dashboard.html')}`,
      );
    }
  });

  it('signs in and lands on the site for spellings that once left it', async () => {
    const origin = new URL(page.url()).origin;
    // Raw in the query (as a crafted link carries them) and encoded.
    const queries = ['/%09/evil.example', '/.//evil.example', '/x/../..//evil.example', '/%5C/evil.example', '/\\/evil.example'].flatMap(
      (target) => [target, encodeURIComponent(target)],
    );
    for (const query of queries) {
      // Leave the dashboard of the last sign-in first: signed out, it would send itself to the sign-in page.
      await page.goto('about:blank');
      await page.context().clearCookies();
      await page.goto(`/login.html?returnTo=${query}`);
      await page.getByLabel('Email or username').fill(EMAIL);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => !url.pathname.endsWith('/login.html'));
      expect(staysOn(origin, page.url()), `${query} -> ${page.url()}`).toBe(true);
      expect(new URL(page.url()).pathname).toBe('/dashboard.html');
    }
  });
});

describe('sign-in page with a share link', () => {
  it('the share link lands on the sign-up form; the new account is attributed, and the provider button carries the code', async () => {
    const referrer = await ctx.services.customers.create({ email: 'referrer.web@example.test' });
    const code = await referralCodeOf(ctx.storage.db, referrer.customer.id, Date.now());
    await page.context().clearCookies();
    await page.goto(`/r/${code}`);
    // The address is what is checked here; the form's heading below waits for the page itself (waiting for the load
    // event again after the redirect timed out once in a loaded CI run).
    await page.waitForURL(/\/login\.html\?ref=[A-Za-z0-9]+#\/register$/, { waitUntil: 'commit' });
    await page.getByRole('heading', { level: 1, name: 'Create an account' }).waitFor();
    await page.getByLabel('Email').fill('referred.web@example.test');
    await page.getByLabel('Password').fill('referred password 1');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/dashboard\.html/);
    const customer = await ctx.storage.db
      .selectFrom('customers')
      .select('id')
      .where('email', '=', 'referred.web@example.test')
      .executeTakeFirstOrThrow();
    const referral = await ctx.storage.db
      .selectFrom('referrals')
      .select('referrer_customer_id')
      .where('referred_customer_id', '=', customer.id)
      .executeTakeFirstOrThrow();
    expect(Number(referral.referrer_customer_id)).toBe(referrer.customer.id);

    await page.goto(`/login.html?ref=${code}`);
    const button = page.getByRole('link', { name: 'Continue with your identity provider' });
    await button.waitFor();
    expect(await button.getAttribute('href')).toBe(
      `/api/v1/auth/idp/start?returnTo=${encodeURIComponent('/dashboard.html')}&referralCode=${code}`,
    );
  });
});
