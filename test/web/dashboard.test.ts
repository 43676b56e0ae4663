/**
 * The customer dashboard in Chromium against the real service, the scripted model upstream and the card-processor
 * double: registration with the human check, two-factor set-up and sign-in, a key created in the page and used
 * with the official `openai` client, a card top-up followed through the processor, password reset by the mailed
 * link, keyboard-only use (skip link, Tab order, Enter), accessibility (axe) of every view and the sign-in
 * sub-pages in light and dark colours, and a 375 px phone layout without horizontal scrolling.
 */
import OpenAI from 'openai';
import * as OTPAuth from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailMessage } from '../../src/accounts/mailer.js';
import { billingConfig } from '../billing/helpers.js';
import { startCardProcessor, type CardProcessor } from '../fakes/card-processor.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { openBrowser, seriousAccessibilityViolations, type BrowserSession } from '../helpers/browser.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { ensureWebBuilt } from '../helpers/web.js';

const EMAIL = 'browser-user@example.com';
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

let ctx: TestContext;
let upstream: ModelUpstream;
let processor: CardProcessor;
let browser: BrowserSession;
let page: Page;
const mails: MailMessage[] = [];
const pageErrors: string[] = [];
let totpSecret = '';
let apiKey = '';

/** Waits until the page's ALTCHA widget has solved its proof of work (in its worker, as for a person). */
async function humanCheckSolved(): Promise<void> {
  await page.waitForFunction(
    () => (document.querySelector('altcha-widget') as (Element & { getState?: () => string }) | null)?.getState?.() === 'verified',
    undefined,
    { timeout: 60_000 },
  );
}

function totp(offsetSeconds = 0): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(totpSecret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: Date.now() + offsetSeconds * 1000,
  });
}

async function expectAccessible(): Promise<void> {
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
}

async function view(name: string, heading: string): Promise<void> {
  await page.goto(`/dashboard.html#/${name}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** The balance on Home once the wallet status arrived. */
async function balanceText(): Promise<string> {
  if (!page.url().endsWith('#/home')) await view('home', 'Home');
  return (await page.getByTestId('balance').textContent())!.trim();
}

beforeAll(async () => {
  await ensureWebBuilt();
  upstream = await startModelUpstream();
  processor = await startCardProcessor();
  ctx = await createTestContext({
    config: {
      ...billingConfig(upstream.url),
      // The production check with less work per attempt, so the widget solves it in a few seconds here.
      // Self-service sign-up from the sign-in page is under test: registration open, as configured for it.
      // The daily check-in is claimed below; promotions are off unless configured.
      promotions: { checkin: { enabled: true } },
      accounts: { registration: 'open', humanCheck: { requiredFor: ['register', 'promotion'], cost: 100, maxCounter: 2_000 } },
      payments: {
        card: { enabled: true, apiBaseUrl: processor.url, secretKey: processor.secretKey, webhookSecret: processor.webhookSecret },
      },
    } as never,
    mailer: {
      async send(message) {
        mails.push(message);
      },
      async close() {},
    },
  });
  const url = await ctx.listen();
  browser = await openBrowser({ baseURL: url });
  page = browser.page;
  page.setDefaultTimeout(10_000);
  page.on('dialog', (dialog) => void dialog.accept());
  page.on('pageerror', (error) => pageErrors.push(error.message));
  // The hosted checkout page of the processor: the test plays the buyer's bank.
  await browser.context.route(`${processor.url}/pay/**`, (route) =>
    route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Card checkout</title><h1>Card checkout</h1>' }),
  );
});

afterAll(async () => {
  // Every script error in the pages fails the file.
  expect(pageErrors).toEqual([]);
  await browser?.close();
  await ctx?.close();
  await upstream?.close();
  await processor?.close();
});

describe('sign-in page', () => {
  it('tells the page what to offer: no identity provider here, a human check at registration', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/v1/auth/options' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      identity_provider: false,
      registration: 'open',
      human_check: { register: true, promotion: true, idp: false, web_login: false },
    });
  });

  it('sends a visitor without a session to the sign-in page and shows single-sign-on failures as sentences', async () => {
    await page.goto('/dashboard.html#/keys');
    await page.waitForURL(/\/login\.html\?returnTo=/);
    expect(new URL(page.url()).searchParams.get('returnTo')).toBe('/dashboard.html#/keys');
    await page.goto('/login.html?error=idp_email_unverified');
    await expect(page.getByRole('alert').textContent()).resolves.toContain('no verified email address');
    expect(await page.getByRole('button', { name: /identity provider/ }).count()).toBe(0);
    await expectAccessible();
  });

  it('has no serious accessibility violation on the registration and reset-request pages, light or dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [hash, heading] of [
        ['#/register', 'Create an account'],
        ['#/forgot', 'Reset your password'],
      ] as const) {
        await page.goto(`/login.html${hash}`);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        if (hash === '#/register') await page.getByTestId('human-check').locator('altcha-widget').waitFor();
        expect(await seriousAccessibilityViolations(page), `${hash} ${scheme}`).toEqual([]);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('registers through the ALTCHA widget solving the challenge (without it the sign-up is refused) and lands on Home', async () => {
    // No solved check: the service refuses the sign-up and creates nothing.
    const refused = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/customer/register',
      payload: { email: EMAIL, password: PASSWORD },
    });
    expect(refused.statusCode).toBe(422);
    await page.goto('/login.html?returnTo=%2Fdashboard.html#/register');
    await page.getByTestId('human-check').locator('altcha-widget').waitFor();
    await page.getByLabel('Name (optional)').fill('Browser User');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await humanCheckSolved();
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/dashboard\.html/);
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    expect(await page.getByTestId('balance').textContent()).toBe('$0.00');
    const row = await ctx.storage.db
      .selectFrom('customers')
      .select('email_verified_at')
      .where('email', '=', EMAIL)
      .executeTakeFirstOrThrow();
    expect(row.email_verified_at).toBeNull();
    await expectAccessible();
  });

  it('turns on two-factor sign-in with the QR code, then signs in with a code', async () => {
    await view('settings', 'Settings');
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const qr = page.getByRole('img', { name: 'QR code of the authenticator secret' });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    totpSecret = (await page.getByTestId('totp-secret').textContent())!.trim();
    await page.getByLabel('Code from the app').fill(totp());
    await page.getByRole('form', { name: 'Confirm two-factor sign-in' }).getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('Two-factor sign-in is on.').waitFor();
    await expectAccessible();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login\.html/);
    await page.getByLabel('Email or username').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel('Authenticator code');
    await code.waitFor();
    await code.fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Invalid authenticator code');
    expect(await page.context().cookies()).not.toContainEqual(expect.objectContaining({ name: 'sy_session' }));
    // The next step's code: the one that turned two-factor sign-in on is spent.
    await code.fill(totp(30));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/dashboard\.html/);
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
  });
});

describe('dashboard', () => {
  it('tops up $10 by card through the processor checkout and shows the new balance', async () => {
    await view('money', 'Money');
    await expectAccessible();
    await page.getByRole('radio', { name: /\$10 credit/ }).check();
    await page.getByRole('button', { name: 'Pay $10.00 by card' }).click();
    await page.waitForURL(`${processor.url}/pay/**`);
    const sessionId = new URL(page.url()).pathname.split('/').pop()!;
    expect(processor.sessions.get(sessionId)).toMatchObject({ status: 'open', amount_total: 1000 });
    // The buyer pays at the processor; it sends the signed webhook and the buyer back to the dashboard.
    const raw = JSON.stringify(processor.event('checkout.session.completed', processor.pay(sessionId)));
    const delivered = await fetch(`${ctx.url}/api/v1/card/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': processor.signature(raw) },
      body: raw,
    });
    expect(delivered.status, await delivered.text()).toBe(200);
    await page.goto(`/dashboard.html?checkout=${sessionId}`);
    await page.getByText('Payment received: $10.00 added to your wallet.').waitFor();
    expect(await page.getByTestId('balance').textContent()).toBe('$10.00');
    expect(new URL(page.url()).search).toBe('');
    await view('money', 'Money');
    await expect(page.getByTestId('purchase').first().textContent()).resolves.toMatch(/card.*token.*paid/);
    // Into the cash wallet, the page asks the cash wallet's own checkout: the new open payment is the cash wallet's.
    await page.getByRole('radio', { name: /\$10 credit/ }).check();
    await page.getByLabel('Into which wallet').selectOption('cash');
    await page.getByRole('button', { name: 'Pay $10.00 by card' }).click();
    await page.waitForURL(`${processor.url}/pay/**`);
    await view('money', 'Money');
    await expect(page.getByTestId('purchase').first().textContent()).resolves.toMatch(/card.*cash.*open/);
  });

  it('creates a key in the page; its secret, shown once, works with the openai client and the spend shows up', async () => {
    await view('keys', 'API keys');
    await page.getByLabel('Name', { exact: true }).fill('browser key');
    await page.getByLabel('Model API (/v1)').check();
    await page.getByLabel('Spending limit (USD, optional)').fill('5');
    await page.getByRole('button', { name: 'Create key' }).click();
    apiKey = (await page.getByTestId('new-secret').textContent())!.trim();
    expect(apiKey).toMatch(/^syu_/);
    await expectAccessible();
    await page.getByRole('button', { name: 'I saved it' }).click();
    expect(await page.getByTestId('new-secret').count()).toBe(0);
    await expect(page.locator('tr', { hasText: 'browser key' }).textContent()).resolves.toContain('surfaces: gateway');

    upstream.enqueue({ kind: 'text', text: 'Hello from the browser test.', usage: { inputTokens: 1000, outputTokens: 500 } });
    const client = new OpenAI({ baseURL: `${ctx.url}/v1`, apiKey, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'power-ai', messages: [{ role: 'user', content: 'Say hello' }] });
    expect(completion.choices[0]!.message.content).toBe('Hello from the browser test.');

    // 1000 input and 500 output tokens at $4 / $24 per million: $0.016 (money is shown exactly, to the micro-dollar).
    await expect.poll(balanceText).toBe('$9.984');
    await page.getByText('Show as table').first().click();
    const table = page.locator('table', { hasText: 'Daily spend by model' });
    await expect(table.locator('thead').textContent()).resolves.toContain('test-model');
    await expect(table.locator('tbody').textContent()).resolves.toContain('$0.016');

    await view('keys', 'API keys');
    const row = page.locator('tr', { hasText: 'browser key' });
    await row.getByRole('button', { name: /Usage/ }).click();
    await page.locator('figcaption', { hasText: /1 requests, \$0\.016\)/ }).waitFor();
    await page.getByRole('button', { name: 'Run health check' }).click();
    await expect(page.getByTestId('health').textContent()).resolves.toContain('Overall: ready');
  });

  it('replaces the key (the old secret stops, the new one works) and revokes the new one', async () => {
    await view('keys', 'API keys');
    await page
      .locator('tr', { hasText: 'browser key' })
      .getByRole('button', { name: /Replace/ })
      .click();
    await page.getByText('Key “browser key” replaced; the old secret no longer works.').waitFor();
    const replacement = (await page.getByTestId('new-secret').textContent())!.trim();
    expect(replacement).toMatch(/^syu_/);
    expect(replacement).not.toBe(apiKey);
    const ask = (key: string) =>
      new OpenAI({ baseURL: `${ctx.url}/v1`, apiKey: key, maxRetries: 0 }).chat.completions.create({
        model: 'power-ai',
        messages: [{ role: 'user', content: 'again' }],
      });
    await expect(ask(apiKey)).rejects.toMatchObject({ status: 401 });
    await expect(ask(replacement)).resolves.toMatchObject({ object: 'chat.completion' });

    await page
      .locator('tr', { hasText: 'browser key' })
      .getByRole('button', { name: /Revoke/ })
      .click();
    await page.getByText('Key “browser key” revoked.').waitFor();
    await expect(ask(replacement)).rejects.toMatchObject({ status: 401 });
    expect(await page.locator('tr', { hasText: 'browser key' }).count()).toBe(0);
  });

  it('works from the keyboard alone: the skip link first, then a form reached with Tab and sent with Enter', async () => {
    /** What has the focus: tag, id, its accessible text or its label, and whether it is inside the view (<main>). */
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        const labels = (element as HTMLInputElement | null)?.labels;
        return {
          tag: element?.tagName.toLowerCase() ?? '',
          id: element?.id ?? '',
          name: (labels?.[0]?.textContent ?? element?.getAttribute('aria-label') ?? element?.textContent ?? '').trim(),
          inView: element?.closest('main') !== null,
        };
      });
    const tab = async () => {
      await page.keyboard.press('Tab');
      return focused();
    };
    const freshLoad = async (name: string, heading: string) => {
      await page.goto('/openapi.json');
      await view(name, heading);
      await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
    };

    // The skip link is the first stop; it moves the focus to the view and leaves the route alone.
    await freshLoad('home', 'Home');
    expect(await tab()).toMatchObject({ tag: 'a', name: 'Skip to content' });
    await page.keyboard.press('Enter');
    expect(await focused()).toMatchObject({ tag: 'main', id: 'main' });
    expect(new URL(page.url()).hash).toBe('#/home');
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    expect((await tab()).inView).toBe(true);

    // Skip link, then the navigation in order; Enter on a link opens the view and the focus lands in it.
    await freshLoad('home', 'Home');
    expect(await tab()).toMatchObject({ tag: 'a', name: 'Skip to content' });
    expect(await tab()).toMatchObject({ tag: 'a', name: 'Home', inView: false });
    expect(await tab()).toMatchObject({ tag: 'a', name: 'Projects', inView: false });
    expect(await tab()).toMatchObject({ tag: 'a', name: 'API keys', inView: false });
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.locator('tr[data-testid^="key-"]').first().waitFor();
    expect(await focused()).toMatchObject({ tag: 'main', id: 'main' });
    expect(await page.title()).toBe('API keys · Switchyard');

    // Tab on through the view to the create form's Name field: every stop on the way is inside the view.
    const stops: string[] = [];
    for (let current = await tab(); !(current.tag === 'input' && current.name === 'Name'); current = await tab()) {
      expect(current.inView, `focus left the view at ${current.tag} “${current.name}”`).toBe(true);
      stops.push(current.name);
      expect(stops.length, stops.join(' → ')).toBeLessThan(60);
    }
    await page.keyboard.type('keyboard key');
    await page.keyboard.press('Enter');
    const secret = (await page.getByTestId('new-secret').textContent())!.trim();
    expect(secret).toMatch(/^syu_/);
    await page.locator('tr', { hasText: 'keyboard key' }).waitFor();
    const models = await ctx.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer ${secret}` } });
    expect(models.statusCode).toBe(200);
  });

  it('saves the profile name and notification preferences from Settings', async () => {
    await view('settings', 'Settings');
    await page.getByLabel('First name').fill('Grace');
    await page.getByLabel('Surname').fill('Hopper');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('Name saved.').waitFor();
    await page.getByLabel('Product updates').check();
    await page.getByLabel('Billing and receipts').uncheck();
    await page.getByRole('button', { name: 'Save notifications' }).click();
    await page.getByText('Notification preferences saved.').waitFor();
    // Read back through the API with the page's own session.
    const cookies = await page.context().cookies();
    const cookieHeader = cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
    const me = await ctx.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: cookieHeader } });
    expect(me.json().profile).toMatchObject({ first_name: 'Grace', surname: 'Hopper' });
    const engagement = await ctx.app.inject({ method: 'GET', url: '/api/v1/customer-engagement', headers: { cookie: cookieHeader } });
    expect(engagement.json().email).toMatchObject({ productUpdates: true, billing: false });
    // Agent preferences and the chat-bot link code go through the typed client too.
    await page.getByLabel('Reasoning effort').selectOption('high');
    await page.getByLabel('Approval policy').selectOption('never');
    await page.getByRole('button', { name: 'Save agent preferences' }).click();
    await page.getByText('Agent preferences saved.').waitFor();
    const toolbox = await ctx.app.inject({ method: 'GET', url: '/api/v1/toolbox', headers: { cookie: cookieHeader } });
    expect(toolbox.json().settings).toMatchObject({ reasoningEffort: 'high', approvalPolicy: 'never' });
    await page.getByRole('button', { name: 'Get a link code' }).click();
    await expect.poll(() => page.getByTestId('chatbot-command').textContent()).toMatch(/^\/link \S+/);
  });

  it('claims the daily check-in from Promotions once the email is verified, through the widget', async () => {
    // The link mailed at sign-up verifies the email (free credit needs it).
    const mail = mails.find((message) => message.to === EMAIL && /verify-email\?token=/.test(message.text));
    const link = /https?:\/\/\S+verify-email\?token=[A-Za-z0-9_-]+/.exec(mail!.text)![0];
    await page.goto(new URL(link).pathname + new URL(link).search);
    await page.waitForURL(/email_verified=1/);
    await view('promotions', 'Promotions');
    await humanCheckSolved();
    await page.getByRole('button', { name: 'Check in' }).click();
    await page.getByText('Checked in: the reward is in your wallet.').waitFor();
    await expect.poll(balanceText).toMatch(/^\$10\.08/);
  });

  it('fits a 375 px phone screen without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const [name, heading] of [
      ['home', 'Home'],
      ['projects', 'Projects'],
      ['keys', 'API keys'],
      ['money', 'Money'],
      ['promotions', 'Promotions'],
      ['settings', 'Settings'],
    ] as const) {
      await view(name, heading);
      if (name === 'keys') await page.locator('tr[data-testid^="key-"]').first().waitFor();
      // Measured once the view's data arrived (a table row is there, or nothing is loading).
      await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
      const layout = () =>
        page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          // What sticks out, to make a failure readable.
          overflowing: [...document.querySelectorAll('body *')]
            .filter((element) => element.getBoundingClientRect().right > 375.5 && !element.closest('.table-wrap'))
            .slice(0, 5)
            .map((element) => `${element.tagName.toLowerCase()}.${element.className} ${Math.round(element.getBoundingClientRect().right)}`),
        }));
      let measured = await layout();
      for (let i = 0; i < 10 && measured.scrollWidth > 375; i++) measured = await layout();
      expect(measured.scrollWidth, `${name}: ${measured.overflowing.join(', ')}`).toBeLessThanOrEqual(375);
    }
    await expectAccessible();
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('has no serious accessibility violation on any view, in light or dark colours', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [name, heading] of [
        ['home', 'Home'],
        ['projects', 'Projects'],
        ['keys', 'API keys'],
        ['money', 'Money'],
        ['promotions', 'Promotions'],
        ['settings', 'Settings'],
      ] as const) {
        await view(name, heading);
        await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
        expect(await seriousAccessibilityViolations(page), `${name} ${scheme}`).toEqual([]);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('resets the password through the mailed link, which opens the sign-in page', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login\.html/);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByRole('button', { name: 'Email me a reset link' }).click();
    await page.getByText('If an account uses this email').waitFor();
    for (let i = 0; i < 200 && mails.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const link = /(http\S+\/login\.html#token=[A-Za-z0-9_-]+)/.exec(mails.at(-1)!.text ?? '')![1]!;
    await page.goto(`${ctx.url}${new URL(link).pathname}${new URL(link).hash}`);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your new password is set.').waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Email or username').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/invalid/i);
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Authenticator code').waitFor();
  });
});
