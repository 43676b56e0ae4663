/**
 * A new customer's first hour in Chromium against the real service and the scripted model upstream, on a service
 * without payment methods or promotions: Home's "Get started" (the curl snippet it shows, run with curl, is first
 * refused with a 402 naming the Money page, then answers once the operator credited the wallet), the Money page
 * that says how credit arrives, Activity with the call and its cost (the CSV says the same), the same activity in
 * the operator console, the phone header, and axe on each of these pages.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUp } from '../chassis/support.js';
import { billingConfig } from '../billing/helpers.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { openBrowser, seriousAccessibilityViolations, type BrowserSession } from '../helpers/browser.js';
import { createTestContext, STATIC_TOKEN, type TestContext } from '../helpers/context.js';
import { ensureWebBuilt } from '../helpers/web.js';
import { usd } from '../../web/shared/format.js';

const run = promisify(execFile);
const CONTACT = 'credit@operator.test';

let context: TestContext;
let upstream: ModelUpstream;
let browser: BrowserSession;
let page: Page;
let alice: SignedUp;
let url: string;
let snippet = '';
const pageErrors: string[] = [];

/** A free loopback port, so the service's public URL (what the page shows) is the one it listens on. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function expectAccessible(what: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    expect(await seriousAccessibilityViolations(page), `${what} ${scheme}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

async function view(name: string, heading: string): Promise<void> {
  await page.goto(`/dashboard.html#/${name}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** Runs the page's curl snippet in a shell, as the customer would paste it. */
async function runSnippet(): Promise<{ status: number; body: any }> {
  const { stdout } = await run('bash', ['-c', `${snippet.replace(/^curl -s /, 'curl -s -w "\\n%{http_code}" ')}`]);
  const lines = stdout.trimEnd().split('\n');
  const status = Number(lines.pop());
  return { status, body: JSON.parse(lines.join('\n')) };
}

beforeAll(async () => {
  await ensureWebBuilt();
  upstream = await startModelUpstream();
  const port = await freePort();
  context = await createTestContext({
    env: { SWITCHYARD_PUBLIC_URL: `http://127.0.0.1:${port}` },
    config: {
      ...billingConfig(upstream.url),
      accounts: { operatorContact: CONTACT },
      promotions: {
        checkin: { enabled: false },
        spinWheel: { enabled: false },
        shareCredit: { enabled: false },
        raffle: { enabled: false },
      },
    } as never,
  });
  url = await context.app.listen({ port, host: '127.0.0.1' });
  alice = await signUp(context, 'alice');
  browser = await openBrowser({ baseURL: url });
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
  page = browser.page;
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto('/openapi.json');
  const signedIn = await page.evaluate(async ({ email, password }) => {
    const response = await fetch('/api/v1/auth/web-login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    return response.status;
  }, alice);
  expect(signedIn).toBe(200);
}, 60_000);

afterAll(async () => {
  expect(pageErrors).toEqual([]);
  await browser?.close();
  await context?.close();
  await upstream?.close();
});

describe('the first hour of a customer', () => {
  it('Get started: the base URL, a key made on the spot, and a curl snippet that works as shown', async () => {
    await view('home', 'Home');
    const card = page.getByRole('region', { name: 'Get started' });
    expect(await card.getByTestId('base-url').textContent()).toBe(`${url}/v1`);
    await card.getByRole('button', { name: 'Create a key' }).click();
    const key = (await card.getByTestId('get-started-key').textContent())!;
    expect(key).toMatch(/\S{20,}/);
    snippet = (await card.getByTestId('snippet').textContent())!;
    expect(snippet).toContain(`${url}/v1/chat/completions`);
    expect(snippet).toContain(`Bearer ${key}`);
    await card.getByRole('button', { name: 'Copy curl example' }).click();
    await card.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);

    // The wallet is empty: the snippet's call is refused, and the answer says where credit comes from.
    const refused = await runSnippet();
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ type: 'insufficient_quota', billing_url: `${url}/dashboard.html#/money` });
    expect(refused.body.error.message).toContain(`${url}/dashboard.html#/money`);
    expect(upstream.requests).toHaveLength(0);

    // The other clients' snippets carry the same base URL, key and model.
    await card.getByRole('button', { name: 'Python' }).click();
    expect(await card.getByTestId('snippet').textContent()).toContain(`OpenAI(base_url="${url}/v1", api_key="${key}")`);
    await card.getByRole('button', { name: 'Claude Code' }).click();
    expect(await card.getByTestId('snippet').textContent()).toContain(`export ANTHROPIC_BASE_URL=${url}\n`);
    await card.getByRole('button', { name: 'Codex CLI' }).click();
    expect(await card.getByTestId('snippet').textContent()).toContain(`base_url = "${url}/v1"`);
    await expectAccessible('home');
  });

  it('the 402 link opens a Money page that says how credit arrives, with nothing that cannot work', async () => {
    await page.goto(`${url}/dashboard.html#/money`);
    await page.getByRole('heading', { level: 1, name: 'Money' }).waitFor();
    const ask = page.getByTestId('ask-operator');
    await ask.waitFor();
    expect(await ask.textContent()).toContain('the operator adds credit');
    expect(await ask.getByRole('link', { name: CONTACT }).getAttribute('href')).toBe(`mailto:${CONTACT}`);
    for (const dead of ['Add credit', 'Auto top-up', 'Crypto refund addresses', 'Unlimited plans', 'Purchases and receipts', 'Cash wallet'])
      expect(await page.getByRole('heading', { name: dead, exact: true }).count(), dead).toBe(0);
    expect(await page.getByRole('button', { name: /by card|crypto|bonus code/i }).count()).toBe(0);
    // No promotion is on, so the navigation does not offer the page.
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Promotions' }).count()).toBe(0);
    await expectAccessible('money');
  });

  it('after the operator credits the wallet, the same snippet answers, and Activity shows the call with its cost; the CSV agrees', async () => {
    await context.services.billing.adjust({
      customerId: alice.customerId,
      amountMicros: 5_000_000,
      reason: 'welcome credit',
      wallet: 'token',
      idempotencyKey: `first-hour-${alice.customerId}`,
    });
    upstream.enqueue({ kind: 'text', text: 'Hello there.', usage: { inputTokens: 1_200, outputTokens: 80 } });
    const answered = await runSnippet();
    expect(answered.status).toBe(200);
    expect(answered.body.choices[0].message.content).toBe('Hello there.');

    await view('activity', 'Activity');
    const row = page.getByTestId('activity-row');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    // $4/M in and $24/M out on the test card: 1,200 × 4 + 80 × 24 µUSD.
    const costMicros = 1_200 * 4 + 80 * 24;
    expect(await row.getByTestId('activity-cost').textContent()).toBe(usd(costMicros));
    const text = (await row.textContent())!;
    expect(text).toContain('Get started');
    expect(text).toContain('Completed');
    expect(await page.getByTestId('activity-totals').textContent()).toContain(`1 billed call, ${usd(costMicros)}`);

    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    const csv = await page.evaluate(async (path) => (await fetch(path!)).text(), href);
    const [header, ...lines] = csv.trimEnd().split('\n');
    const columns = header!.split(',');
    expect(lines).toHaveLength(1);
    const fields = Object.fromEntries(lines[0]!.split(',').map((value, at) => [columns[at], value]));
    expect(fields).toMatchObject({ kind: 'call', key_name: 'Get started', cost_usd: '0.006720', outcome: 'completed' });
    expect(text).toContain(fields.request_id);

    await page.getByLabel('Outcome').selectOption('failed');
    await page.getByText('Nothing billed with these filters.').waitFor();
    expect(await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toContain('outcome=failed');
    await page.getByLabel('Outcome').selectOption('');
    await row.first().waitFor();
    await expectAccessible('activity');
  });

  it('on a phone the header keeps the name and Sign out on one line, and nothing scrolls sideways', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const [name, heading] of [
      ['home', 'Home'],
      ['activity', 'Activity'],
      ['money', 'Money'],
    ] as const) {
      await view(name, heading);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(375);
    }
    const brand = (await page.locator('.sidebar .brand').boundingBox())!;
    const signOut = (await page.getByRole('button', { name: 'Sign out' }).boundingBox())!;
    expect(Math.abs(brand.y + brand.height / 2 - (signOut.y + signOut.height / 2))).toBeLessThan(12);
    const header = (await page.locator('.sidebar').boundingBox())!;
    expect(header.height).toBeLessThan(200);
    await expectAccessible('phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('the operator console shows the same call on the customer’s Activity tab', async () => {
    await page.goto('/admin.html');
    await page.getByLabel('Operator token or managed operator key').fill(STATIC_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: alice.email }).click();
    await page.getByRole('button', { name: 'Activity' }).click();
    const row = page.getByTestId('customer-activity').getByTestId('activity-row');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.getByTestId('activity-cost').textContent()).toBe(usd(1_200 * 4 + 80 * 24));
    await expectAccessible('console activity');
  });
});
