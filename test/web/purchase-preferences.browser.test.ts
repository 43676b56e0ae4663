/**
 * Purchase preferences in the dashboard (Chromium, the real service and the crypto-processor double): saved in
 * the Money view, they choose the pack and coin the top-up starts with, put the preferred method first, and show
 * estimates in the display currency next to USD prices; the crypto checkout then opens an invoice in USD.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUp } from '../chassis/support.js';
import { startCryptoProcessor, type CryptoProcessor } from '../fakes/crypto-processor.js';
import { openBrowser, seriousAccessibilityViolations, type BrowserSession } from '../helpers/browser.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { ensureWebBuilt } from '../helpers/web.js';

describe('purchase preferences in the Money view (Chromium)', () => {
  let context: TestContext;
  let crypto: CryptoProcessor;
  let browser: BrowserSession;
  let alice: SignedUp;

  beforeAll(async () => {
    await ensureWebBuilt();
    crypto = await startCryptoProcessor();
    context = await createTestContext({
      config: {
        payments: {
          crypto: {
            enabled: true,
            apiBaseUrl: crypto.url,
            apiKey: crypto.apiKey,
            ipnSecret: crypto.ipnSecret,
            successUrl: '/dashboard.html',
          },
        },
        currencyEstimates: { rates: { EUR: 0.5 }, asOf: '2026-11-01' },
      } as never,
    });
    alice = await signUp(context, 'alice');
    browser = await openBrowser({ baseURL: await context.listen() });
    browser.page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await context?.close();
    await crypto?.close();
  });

  it('saves the preferences in the page; the top-up then starts from them and shows estimates in the display currency', async () => {
    const { page } = browser;
    await page.goto('/openapi.json');
    const status = await page.evaluate(async ({ email, password }) => {
      const response = await fetch('/api/v1/auth/web-login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      return response.status;
    }, alice);
    expect(status).toBe(200);

    await page.goto('/dashboard.html#/money');
    await page.getByRole('heading', { level: 1, name: 'Money' }).waitFor();
    const form = page.getByRole('form', { name: 'Purchase preferences' });
    await form.getByLabel('Default pack').selectOption('pack-25');
    await form.getByLabel('Preferred payment method').selectOption('crypto');
    await form.getByLabel('Default coin').selectOption('eth');
    await form.getByLabel('Show estimates in').selectOption('EUR');
    await form.getByRole('button', { name: 'Save purchase preferences' }).click();
    await page.getByText('Purchase preferences saved.').waitFor();
    const saved = await context.app.inject({ method: 'GET', url: '/api/v1/purchase-preferences', headers: bearer(alice.systemToken) });
    expect(saved.json()).toEqual({ default_pack_id: 'pack-25', payment_method: 'crypto', pay_currency: 'eth', display_currency: 'EUR' });

    // A fresh load starts from the saved preferences.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Money' }).waitFor();
    const pack25 = page.getByRole('radio', { name: /\$25 credit/ });
    await pack25.waitFor();
    expect(await pack25.isChecked()).toBe(true);
    expect(await page.getByText(/\$25 credit — pay \$25\.00 \(≈ 12\.50 EUR\)/).count()).toBe(1);
    expect(await page.getByLabel('Pay with crypto').inputValue()).toBe('eth');
    // The preferred method comes first and is the primary button.
    const buttons = await page.locator('button', { hasText: /^Pay / }).allTextContents();
    expect(buttons[0]).toBe('Pay by crypto');
    expect((await page.getByRole('button', { name: 'Pay by crypto' }).getAttribute('class')) ?? '').not.toContain('secondary');
    // Card payments are not enabled here: no card button at all (nothing that cannot work).
    expect(await page.getByRole('button', { name: /by card/ }).count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // The checkout it starts is priced in USD for the preferred coin.
    await page.getByRole('button', { name: 'Pay by crypto' }).click();
    // The page is already on /dashboard.html, so its address says nothing yet: wait for the processor's invoice.
    await expect.poll(() => crypto.invoices.size, { timeout: 15_000 }).toBe(1);
    const invoice = [...crypto.invoices.values()].at(-1)!;
    expect(invoice).toMatchObject({ price_amount: 25, price_currency: 'usd', pay_currency: 'eth' });
  });
});
