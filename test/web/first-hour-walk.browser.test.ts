/**
 * The whole first hour in Chromium, on a fresh data dir, against the real service, the real app-server and the
 * scripted upstream, done in the UI as people would: the operator signs in to the console with the token the
 * service wrote into its data dir and invites a customer (no SMTP: the console shows the link); the customer
 * registers from the link, sees "Get started" on Home, creates a key there and runs the curl snippet it shows
 * (402, then 200 once the operator credited the wallet under Customers → Adjust); opens a project, runs an agent
 * turn whose command is approved from the transcript; sees the call and the turn on Activity; deletes the project.
 * Each step is checked at desktop and phone width; with SWITCHYARD_SCREENSHOTS=1 it is also photographed into
 * docs/screenshots/first-hour-<n>-<step>-*.png (a plain test run leaves the committed pictures alone).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureOperatorToken } from '../../src/main.js';
import { gatewayConfig, toolThenText } from '../agent/agent-harness.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { openBrowser, type BrowserSession } from '../helpers/browser.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { ensureWebBuilt } from '../helpers/web.js';
import { SANDBOX_UNAVAILABLE } from '../sandbox/sandbox-support.js';
import { usd } from '../../web/shared/format.js';

const run = promisify(execFile);
const SCREENSHOTS = path.resolve(import.meta.dirname, '../../docs/screenshots');
const PHOTOGRAPH = process.env.SWITCHYARD_SCREENSHOTS === '1';
const EMAIL = 'newcomer@customer.test';
const PASSWORD = 'a long first password';
const operatorActor = { kind: 'operator', source: 'static', keyId: null } as const;

/** A free loopback port, so the service's public URL (what the pages show) is the one it listens on. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The page as it is now, at desktop width and at phone width (same page, same session, same state); on the phone
 * scrolled to `subject`, what the step is about.
 */
async function shoot(page: Page, step: string, subject?: Locator): Promise<void> {
  await subject?.scrollIntoViewIfNeeded();
  if (PHOTOGRAPH) await page.screenshot({ path: path.join(SCREENSHOTS, `first-hour-${step}-desktop.png`) });
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth), step).toBeLessThanOrEqual(375);
  await subject?.scrollIntoViewIfNeeded();
  if (PHOTOGRAPH) await page.screenshot({ path: path.join(SCREENSHOTS, `first-hour-${step}-phone.png`) });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Runs a curl snippet in a shell, as the customer would paste it, and returns the status and the JSON body. */
async function runSnippet(snippet: string): Promise<{ status: number; body: any }> {
  const { stdout } = await run('bash', ['-c', snippet.replace(/^curl -s /, 'curl -s -w "\\n%{http_code}" ')]);
  const lines = stdout.trimEnd().split('\n');
  const status = Number(lines.pop());
  return { status, body: JSON.parse(lines.join('\n')) };
}

describe.skipIf(SANDBOX_UNAVAILABLE !== null)(
  `the first hour, operator and customer, in the UI (Chromium)${SANDBOX_UNAVAILABLE === null ? '' : ` — skipped: bubblewrap is unavailable (${SANDBOX_UNAVAILABLE})`}`,
  () => {
    let context: TestContext;
    let upstream: ModelUpstream;
    let operator: BrowserSession;
    let customer: BrowserSession;
    let url: string;
    let inviteLink = '';
    let snippet = '';
    let projectId = '';
    let workspace = '';
    const pageErrors: string[] = [];

    beforeAll(async () => {
      await ensureWebBuilt();
      upstream = await startModelUpstream();
      const port = await freePort();
      // No static token: the service writes an operator token into its (fresh) data dir, as on a first start.
      context = await createTestContext({
        env: { SWITCHYARD_PUBLIC_URL: `http://127.0.0.1:${port}`, SWITCHYARD_STATIC_TOKEN: '' },
        config: {
          ...gatewayConfig(upstream.url),
          agent: { requestTimeoutMs: 20_000, stopGraceMs: 500, restartBackoffInitialMs: 50 },
        } as never,
      });
      expect(context.config.accounts.registration).toBe('invite');
      expect(context.config.mail.smtp).toBeUndefined();
      url = await context.app.listen({ port, host: '127.0.0.1' });
      operator = await openBrowser({ baseURL: url });
      customer = await openBrowser({ baseURL: url });
      for (const session of [operator, customer]) {
        session.page.setDefaultTimeout(15_000);
        session.page.on('pageerror', (error) => pageErrors.push(error.message));
      }
    }, 60_000);

    afterAll(async () => {
      expect(pageErrors).toEqual([]);
      await operator?.close();
      await customer?.close();
      await context?.close();
      await upstream?.close();
    });

    it('1. the operator signs in to the console with the token file and invites a customer', async () => {
      const tokenFile = await ensureOperatorToken(context.services);
      expect(tokenFile).toBe(path.join(context.dataDir, 'operator-token'));
      const token = fs.readFileSync(tokenFile!, 'utf8').trim();
      const { page } = operator;
      await page.goto('/admin.html');
      await page.getByLabel('Operator token or managed operator key').fill(token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: 'Invites and mail' }).click();
      await page.getByText('Registration on this service:').filter({ hasText: 'invite' }).waitFor();
      await page.getByLabel('Email to invite').fill(EMAIL);
      await page.getByRole('button', { name: 'Send invite' }).click();
      const sent = page.getByTestId('sent-link');
      await sent.waitFor();
      await page.getByText('The invite was not mailed, since no SMTP server is configured: it waits in the outbox;').waitFor();
      inviteLink = (await sent.textContent())!;
      expect(inviteLink).toMatch(new RegExp(`^${url}/login\\.html#invite=[A-Za-z0-9_-]+&email=${encodeURIComponent(EMAIL)}$`));
      // The same mail waits in the outbox, with the same link.
      await page.getByTestId('invites').getByText(EMAIL).waitFor();
      await page.getByTestId('outbox').getByText(`to ${EMAIL}`).waitFor();
      await shoot(page, '1-invite', sent);
    });

    it('2. the customer signs up from the invite, creates a key on Get started, and the snippet answers 200 after a console credit', async () => {
      const { page } = customer;
      await page.goto(inviteLink);
      await page.getByText(`You were invited as ${EMAIL}.`).waitFor();
      await page.getByLabel('Name (optional)').fill('Newcomer');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
      const registered = await context.storage.db.selectFrom('customers').select(['id']).where('email', '=', EMAIL).executeTakeFirst();
      expect(registered).toBeDefined();

      const card = page.getByRole('region', { name: 'Get started' });
      expect(await card.getByTestId('base-url').textContent()).toBe(`${url}/v1`);
      await card.getByRole('button', { name: 'Create a key' }).click();
      const key = (await card.getByTestId('get-started-key').textContent())!;
      expect(key).toMatch(/\S{20,}/);
      snippet = (await card.getByTestId('snippet').textContent())!;
      expect(snippet).toContain(`${url}/v1/chat/completions`);
      expect(snippet).toContain(`Bearer ${key}`);
      await shoot(page, '2-get-started', card);

      // The wallet is empty: the key is known, and the refusal names the Money page.
      const refused = await runSnippet(snippet);
      expect(refused.status).toBe(402);
      expect(refused.body.error.billing_url).toBe(`${url}/dashboard.html#/money`);

      // The operator credits the customer in the console: Customers → the customer → Adjust.
      const desk = operator.page;
      await desk.getByRole('link', { name: 'Customers' }).click();
      await desk.getByRole('button', { name: EMAIL }).click();
      await desk.getByTestId('customer-balance').filter({ hasText: 'Token wallet $0.00 ' }).waitFor();
      await desk.getByLabel('Amount (USD, negative to debit)').fill('5');
      await desk.getByLabel('Reason').fill('welcome credit');
      await desk.getByRole('button', { name: 'Apply adjustment' }).click();
      await desk.getByTestId('customer-balance').filter({ hasText: 'Token wallet $5.00 ' }).waitFor();
      await shoot(desk, '2-credit', desk.getByTestId('customer-balance'));

      upstream.enqueue({ kind: 'text', text: 'Hello there.', usage: { inputTokens: 1_200, outputTokens: 80 } });
      const answered = await runSnippet(snippet);
      expect(answered.status).toBe(200);
      expect(answered.body.choices[0].message.content).toBe('Hello there.');
    });

    it('3. the customer opens a project, runs a turn, approves its command from the transcript, and the turn completes', async () => {
      const { page } = customer;
      await page.goto('/dashboard.html#/projects');
      await page.getByLabel('Project name (optional)').fill('First project');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.waitForURL(/#\/projects\/[^/]+$/);
      projectId = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/projects\//, ''));
      workspace = (await context.services.projects.requireOwned(operatorActor, projectId)).workspaceDir;
      await page.getByTestId('stream-status').filter({ hasText: 'Live' }).waitFor({ timeout: 30_000 });
      await page.getByRole('heading', { name: 'First project' }).waitFor();

      await page.getByText('Turn settings').click();
      await page.getByLabel('Approval policy').selectOption('untrusted');
      await page.getByLabel('Permissions').selectOption(':workspace');
      const cmd = 'echo walk-$((6*7)) > answer.txt; cat answer.txt';
      upstream.setDefault(
        toolThenText({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd, workdir: workspace }) }),
      );
      await page.getByRole('textbox', { name: 'Prompt', exact: true }).fill('write the answer to answer.txt');
      await page.getByRole('button', { name: 'Send' }).click();

      const transcript = page.getByTestId('transcript');
      const approval = transcript.getByTestId('approval');
      await approval.filter({ hasText: cmd }).waitFor({ timeout: 30_000 });
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'approval');
      expect(fs.existsSync(path.join(workspace, 'answer.txt'))).toBe(false);
      await shoot(page, '3-approval', approval);

      await approval.getByRole('button', { name: 'Accept', exact: true }).click();
      await transcript.getByText('Turn completed').waitFor({ timeout: 30_000 });
      await transcript.getByText('Approval accepted').waitFor();
      const command = transcript.locator('li[data-kind="command"]').filter({ hasText: cmd });
      expect(await command.getAttribute('data-status')).toBe('completed');
      await command.getByText('walk-42').waitFor();
      expect(fs.readFileSync(path.join(workspace, 'answer.txt'), 'utf8')).toBe('walk-42\n');
      await shoot(page, '3-turn-completed', command);
    }, 120_000);

    it('4. the customer sees the call and the turn, with their cost, on Activity', async () => {
      const { page } = customer;
      await page.goto('/dashboard.html#/activity');
      await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
      const rows = page.getByTestId('activity-row');
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
      const call = rows.filter({ hasText: 'API call' });
      const turn = rows.filter({ hasText: 'Agent turn' });
      expect(await call.textContent()).toContain('Get started');
      expect(await call.textContent()).toContain('Completed');
      // $4/M in and $24/M out on the standard card: 1,200 × 4 + 80 × 24 µUSD.
      expect(await call.getByTestId('activity-cost').textContent()).toBe(usd(1_200 * 4 + 80 * 24));
      expect(await turn.textContent()).toContain('Completed');
      expect(await turn.getByRole('link', { name: 'First project' }).getAttribute('href')).toBe(
        `#/projects/${encodeURIComponent(projectId)}`,
      );

      const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
      const csv = await page.evaluate(async (at) => (await fetch(at!)).text(), href);
      const [header, ...lines] = csv.trimEnd().split('\n');
      const columns = header!.split(',');
      const entries = lines.map((line) => Object.fromEntries(line.split(',').map((value, at) => [columns[at], value])));
      expect(entries.map((entry) => entry.kind).sort()).toEqual(['agent_turn', 'call']);
      for (const entry of entries) expect(Number(entry.cost_usd), entry.kind).toBeGreaterThan(0);
      await shoot(page, '4-activity');
    });

    it('5. the customer deletes the project', async () => {
      const { page } = customer;
      await page.goto(`/dashboard.html#/projects/${encodeURIComponent(projectId)}`);
      await page.getByRole('heading', { name: 'First project' }).waitFor();
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Delete project' }).click();
      await page.waitForURL(/#\/projects$/);
      await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
      await page.getByText('No projects yet.').waitFor();
      expect(await page.getByRole('link', { name: 'First project' }).count()).toBe(0);
      await expect(context.services.projects.requireOwned(operatorActor, projectId)).rejects.toThrow();
      expect(fs.existsSync(workspace)).toBe(false);
      await shoot(page, '5-project-deleted');
    });
  },
);
