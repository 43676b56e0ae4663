/**
 * The operator console in Chromium against the real service: the page shows only the sign-in form until an
 * operator signs in; then the operator credits a wallet and switches `power-ai` to another destination, and the
 * next `/v1` call (official openai client) reaches the new upstream model. Every section passes axe, light and dark.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUp } from '../chassis/support.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { openBrowser, seriousAccessibilityViolations, type BrowserSession } from '../helpers/browser.js';
import { bearer, createTestContext, STATIC_TOKEN, type TestContext } from '../helpers/context.js';
import { ensureWebBuilt } from '../helpers/web.js';

describe('operator console (Chromium)', () => {
  let context: TestContext;
  let upstream: ModelUpstream;
  let browser: BrowserSession;
  let alice: SignedUp;
  let baseURL: string;

  beforeAll(async () => {
    await ensureWebBuilt();
    upstream = await startModelUpstream();
    context = await createTestContext({
      config: {
        providers: [{ id: 'scripted', kind: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-upstream-secret-7af3' }],
        models: [
          {
            id: 'scripted-coder',
            provider: 'scripted',
            upstreamModel: 'scripted-model',
            capabilities: { responsesApi: true, tools: true },
          },
          {
            id: 'scripted-backup',
            provider: 'scripted',
            upstreamModel: 'scripted-backup-model',
            capabilities: { responsesApi: true, tools: true },
          },
        ],
        aliases: { 'power-ai': 'scripted-coder' },
      } as never,
    });
    baseURL = await context.listen();
    alice = await signUp(context, 'alice');
    browser = await openBrowser({ baseURL });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await context?.close();
    await upstream?.close();
  });

  it('signs in, credits a wallet, switches power-ai and the next /v1 call goes to the new destination', async () => {
    const { page } = browser;
    const adminCalls: { url: string; status: number }[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/api/admin/')) adminCalls.push({ url: response.url(), status: response.status() });
    });

    // Signed out: the sign-in form only, and no request that could only answer 401 (a console error on every load).
    const refused: string[] = [];
    page.on('response', (response) => void (response.status() === 401 && refused.push(response.url())));
    await page.goto('/admin.html');
    await page.getByRole('heading', { name: 'Operator console' }).waitFor();
    expect(await page.getByRole('navigation').count()).toBe(0);
    expect(await page.locator('table').count()).toBe(0);
    expect(adminCalls).toEqual([]);
    expect(refused).toEqual([]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await page.getByLabel('Operator token or managed operator key').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'not an operator token' }).waitFor();
    await page.getByLabel('Operator token or managed operator key').fill(STATIC_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // Customers: open Alice, credit $3 with an Idempotency-Key.
    await page.getByRole('button', { name: alice.email }).click();
    await page.getByTestId('customer-balance').filter({ hasText: 'Token wallet $0.00 ' }).waitFor();
    await page.getByLabel('Amount (USD, negative to debit)').fill('3');
    await page.getByLabel('Reason').fill('console credit');
    await page.getByRole('button', { name: 'Apply adjustment' }).click();
    await page.getByTestId('customer-balance').filter({ hasText: 'Token wallet $3.00 ' }).waitFor();
    const entries = await context.storage.db
      .selectFrom('ledger_entries')
      .select(['transfer_id'])
      .where('kind', '=', 'adjustment')
      .execute();
    expect(new Set(entries.map((entry) => entry.transfer_id)).size).toBe(1);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    // Phone width and dark scheme: no sideways scrolling of the page, no serious accessibility finding.
    await page.setViewportSize({ width: 375, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });

    const client = new OpenAI({ apiKey: alice.systemToken, baseURL: `${baseURL}/v1` });
    await client.chat.completions.create({ model: 'power-ai', messages: [{ role: 'user', content: 'before' }] });
    expect(upstream.requests.at(-1)!.body.model).toBe('scripted-model');

    // Routing: point power-ai at the backup model.
    await page.getByRole('link', { name: 'Providers, models and prices' }).click();
    await page.getByTestId('aliases').filter({ hasText: 'scripted-coder' }).waitFor();
    await page.getByLabel('Destination model').selectOption('scripted-backup');
    await page.getByRole('button', { name: 'Switch destination' }).click();
    await page.getByRole('status').filter({ hasText: 'power-ai now goes to scripted-backup.' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    const answer = await client.chat.completions.create({ model: 'power-ai', messages: [{ role: 'user', content: 'after' }] });
    expect(answer.choices[0]!.message.content).toBeTruthy();
    expect(upstream.requests.at(-1)!.body.model).toBe('scripted-backup-model');
    const aliases = await context.app.inject({
      method: 'GET',
      url: '/api/admin/aliases',
      headers: { authorization: `Bearer ${STATIC_TOKEN}` },
    });
    expect(aliases.json().aliases['power-ai']).toBe('scripted-backup');

    // The other sections, light and dark: no serious accessibility finding once their data arrived.
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const section of ['Invites and mail', 'Providers, models and prices', 'Messages', 'Desktop clients', 'Ledger']) {
        await page.getByRole('link', { name: section }).click();
        await page.getByRole('heading', { level: 1, name: section }).waitFor();
        await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
        expect(await seriousAccessibilityViolations(page), `${section} ${scheme}`).toEqual([]);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // Ledger invariants hold; signing out revokes the session's key and returns to the form.
    await page.getByRole('link', { name: 'Providers, models and prices' }).click();
    await page.getByRole('link', { name: 'Ledger' }).click();
    await page.getByTestId('ledger-result').filter({ hasText: 'All invariants hold.' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Operator token or managed operator key').waitFor();
    const sessions = await context.storage.db
      .selectFrom('api_keys')
      .select(['revoked_at'])
      .where('name', '=', 'operator console session')
      .execute();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.revoked_at).not.toBeNull();
    // The customer is unaffected by any of this.
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(alice.systemToken) })).statusCode).toBe(200);
  }, 120_000);

  it('invites a customer who registers from the link, reads the outbox, finds the customer by email with balance and spend, sees providers masked', async () => {
    const { page } = browser;
    await page.goto('/admin.html');
    await page.getByLabel('Operator token or managed operator key').fill(STATIC_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Invites and mail' }).click();
    await page.getByLabel('Email to invite').fill('bob.invited@example.test');
    await page.getByRole('button', { name: 'Send invite' }).click();
    // No SMTP here: the page says so and shows the link to hand over.
    await page.getByRole('status').filter({ hasText: 'The invite was not mailed, since no SMTP server is configured' }).waitFor();
    const link = (await page.getByTestId('sent-link').getAttribute('href'))!;
    expect(link).toMatch(/\/login\.html#invite=[\w-]+&email=bob\.invited%40example\.test$/);
    await page.getByTestId('invites').filter({ hasText: 'bob.invited@example.test' }).waitFor();
    const bobsMail = page.getByTestId('outbox').locator('li').filter({ hasText: 'to bob.invited@example.test' });
    await bobsMail.getByText('You are invited to Switchyard').click();
    await bobsMail.locator('pre').filter({ hasText: link }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // Bob opens the link in a browser of his own: the invited email is fixed, he only chooses a password.
    const bob = await openBrowser({ baseURL });
    const bobPage = bob.page;
    // (The link names the service's public URL; this test service listens on another port.)
    await bobPage.goto(`${new URL(link).pathname}${new URL(link).hash}`);
    await bobPage.getByText('You were invited as bob.invited@example.test').waitFor();
    await bobPage.getByLabel('Password').fill('bob chose this password');
    await bobPage.getByRole('button', { name: 'Create account' }).click();
    await bobPage.waitForURL(/\/dashboard\.html/);
    await bob.close();

    // Back in the console: the invite is used; the customer list finds Bob by email with balance and 30-day spend.
    await page.getByRole('link', { name: 'Invites and mail' }).click();
    await page.getByTestId('invites').filter({ hasText: 'registered' }).waitFor();
    const bobRow = await context.storage.db
      .selectFrom('customers')
      .select('id')
      .where('email', '=', 'bob.invited@example.test')
      .executeTakeFirstOrThrow();
    await context.app.inject({
      method: 'POST',
      url: `/api/admin/customers/${bobRow.id}/wallet/adjust`,
      headers: { authorization: `Bearer ${STATIC_TOKEN}`, 'idempotency-key': 'credit-bob-1' },
      payload: { amount_micros: 7_500_000, reason: 'welcome' },
    });
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByLabel('Search by email').fill('bob.invited');
    await page.getByRole('button', { name: 'Search' }).click();
    // The unfiltered list may show Bob first; the search's answer is the list without Alice.
    await page.getByRole('button', { name: alice.email }).waitFor({ state: 'detached' });
    await page.getByTestId(`balance-${bobRow.id}`).filter({ hasText: '$7.50' }).waitFor();
    expect(await page.getByTestId(`spent-${bobRow.id}`).textContent()).toBe('$0.00');
    expect(await page.getByRole('button', { name: alice.email }).count()).toBe(0);

    // A password-set link for a customer the console created, shown because there is no SMTP.
    await page.getByRole('button', { name: 'bob.invited@example.test' }).click();
    await page.getByRole('button', { name: 'Send a password-set link' }).click();
    await page.getByTestId('sent-link').filter({ hasText: '/login.html#token=' }).waitFor();

    // Providers: the key masked, never whole.
    await page.getByRole('link', { name: 'Providers, models and prices' }).click();
    await page.getByTestId('providers').filter({ hasText: 'sk-…7af3' }).waitFor();
    expect(await page.content()).not.toContain('sk-upstream-secret-7af3');
    await page.getByTestId('models').filter({ hasText: 'scripted-backup' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  }, 120_000);
});
