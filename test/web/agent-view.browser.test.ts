/**
 * The agent view in Chromium against the real service, the real app-server and the scripted upstream, at phone
 * and desktop width: an approval shows inline in the transcript, takes the focus, is announced and counted in the
 * page title, and is approved from there; an interrupt ends the command waiting for approval; a turn's file
 * changes show their diff; a file is downloaded and deleted; an empty wallet reads as a credit problem with a
 * link to Money; the project is renamed and deleted. With SWITCHYARD_SCREENSHOTS=1 the states are photographed into
 * docs/screenshots/ (a plain test run leaves the committed pictures alone).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayConfig, toolThenText } from '../agent/agent-harness.js';
import { signUp, type SignedUp } from '../chassis/support.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { openBrowser, seriousAccessibilityViolations, type BrowserSession } from '../helpers/browser.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { ensureWebBuilt } from '../helpers/web.js';

const operator = { kind: 'operator', source: 'static', keyId: null } as const;
const SCREENSHOTS = path.resolve(import.meta.dirname, '../../docs/screenshots');
const PHOTOGRAPH = process.env.SWITCHYARD_SCREENSHOTS === '1';

describe('agent view: inline approvals, interrupts, diffs, files, credit errors, rename and delete (Chromium)', () => {
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
        ...gatewayConfig(upstream.url),
        agent: { requestTimeoutMs: 20_000, stopGraceMs: 500, restartBackoffInitialMs: 50 },
      } as never,
    });
    baseURL = await context.listen();
    alice = await signUp(context, 'alice');
    await context.services.billing.adjust({
      customerId: alice.customerId,
      amountMicros: 50_000_000,
      reason: 'browser test',
      wallet: 'token',
      idempotencyKey: `agent-view-${alice.customerId}`,
    });
    browser = await openBrowser({ baseURL });
    await browser.page.goto('/openapi.json');
    const signedIn = await browser.page.evaluate(async ({ email, password }) => {
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
    await browser?.close();
    await context?.close();
    await upstream?.close();
  });

  const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
    context.app.inject({ method, url, headers: bearer(alice.systemToken), ...(payload ? { payload } : {}) });

  async function openProject(name?: string) {
    const created = await api('POST', '/api/v1/projects', name ? { name } : {});
    expect(created.statusCode).toBe(201);
    const projectId = created.json().id as string;
    const workspace = (await context.services.projects.requireOwned(operator, projectId)).workspaceDir;
    await browser.page.goto(`/dashboard.html#/projects/${encodeURIComponent(projectId)}`);
    await browser.page.getByTestId('stream-status').filter({ hasText: 'Live' }).waitFor({ timeout: 30_000 });
    return { projectId, workspace };
  }

  const send = async (prompt: string) => {
    await browser.page.getByRole('textbox', { name: 'Prompt', exact: true }).fill(prompt);
    await browser.page.getByRole('button', { name: 'Send' }).click();
  };

  it('shows an approval inline at phone width, focused, announced and counted in the title; approved from the transcript', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 375, height: 740 });
    const { workspace } = await openProject();
    // An unnamed project is titled by its date, not its id.
    await page.getByRole('heading', { name: /^Untitled project · / }).waitFor();

    await page.getByText('Turn settings').click();
    const policy = page.getByLabel('Approval policy');
    // The default option names what the default really is (the service's default policy: never ask).
    await expect.poll(() => policy.locator('option[value=""]').textContent(), { timeout: 10_000 }).toBe('Default (never ask)');
    await policy.selectOption('untrusted');
    await page.getByLabel('Permissions').selectOption(':workspace');
    upstream.setDefault(
      toolThenText({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo hi > x.txt', workdir: workspace }) }),
    );
    await send('write x.txt please');

    const transcript = page.getByTestId('transcript');
    const approval = transcript.getByTestId('approval');
    await approval.filter({ hasText: 'echo hi > x.txt' }).waitFor({ timeout: 30_000 });
    // Focused, on screen, announced, and counted in the title.
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'approval');
    const box = (await approval.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + Math.min(box.height, 120)).toBeLessThanOrEqual(740);
    expect(await page.getByTestId('approval-announcement').textContent()).toMatch(/^Approval needed: Run a command: .*echo hi > x\.txt/);
    expect(await page.title()).toMatch(/^\(1\) Approval needed · Untitled project/);
    const waiting = transcript.locator('li[data-kind="command"]').filter({ hasText: 'echo hi > x.txt' });
    expect(await waiting.locator('.who').textContent()).toBe('Command · waiting for your approval');
    // The chosen settings stay shown as chosen while the turn runs.
    expect(await policy.inputValue()).toBe('untrusted');
    expect(await policy.locator('option:checked').textContent()).toBe('Ask for untrusted commands');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    if (PHOTOGRAPH) await page.screenshot({ path: path.join(SCREENSHOTS, 'agent-approval-phone.png') });
    expect(fs.existsSync(path.join(workspace, 'x.txt'))).toBe(false);

    await approval.getByRole('button', { name: 'Accept', exact: true }).click();
    await transcript.getByText('Turn completed').waitFor({ timeout: 30_000 });
    await transcript.getByText('Approval accepted').waitFor();
    const command = transcript.locator('li[data-kind="command"]').filter({ hasText: 'echo hi > x.txt' });
    expect(await command.getAttribute('data-status')).toBe('completed');
    expect(await command.locator('.who').textContent()).toBe('Command · done');
    await approval.waitFor({ state: 'detached' });
    expect(fs.readFileSync(path.join(workspace, 'x.txt'), 'utf8')).toBe('hi\n');
    expect(await page.title()).not.toContain('Approval needed');
  }, 120_000);

  it('ends the command waiting for approval as interrupted when the turn is interrupted', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 1280, height: 900 });
    const { workspace } = await openProject('interrupts');
    await page.getByText('Turn settings').click();
    await page.getByLabel('Approval policy').selectOption('untrusted');
    await page.getByLabel('Permissions').selectOption(':workspace');
    upstream.setDefault(
      toolThenText({
        kind: 'tool_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'echo late > late.txt', workdir: workspace }),
      }),
    );
    await send('write late.txt');
    const transcript = page.getByTestId('transcript');
    await transcript.getByTestId('approval').waitFor({ timeout: 30_000 });
    if (PHOTOGRAPH) await page.screenshot({ path: path.join(SCREENSHOTS, 'agent-approval-desktop.png') });
    await page.getByRole('button', { name: 'Interrupt the turn' }).click();
    await transcript.getByText('Turn interrupted').waitFor({ timeout: 30_000 });
    const command = transcript.locator('li[data-kind="command"]').filter({ hasText: 'echo late > late.txt' });
    await command.and(page.locator('[data-status="interrupted"]')).waitFor();
    expect(await command.locator('.who').textContent()).toBe('Command · interrupted');
    expect(await transcript.locator('[data-status="inProgress"]').count()).toBe(0);
    // A fresh load replays the same final state from the service's event log.
    await page.reload();
    await transcript.getByText('Turn interrupted').waitFor({ timeout: 30_000 });
    expect(await command.getAttribute('data-status')).toBe('interrupted');
    expect(await transcript.locator('[data-status="inProgress"]').count()).toBe(0);
    expect(fs.existsSync(path.join(workspace, 'late.txt'))).toBe(false);
  }, 120_000);

  it("shows a turn's diff, downloads and deletes a file, renames and deletes the project", async () => {
    const { page } = browser;
    const { projectId, workspace } = await openProject('diffs');
    expect(
      (
        await context.app.inject({
          method: 'PUT',
          url: `/api/v1/projects/${projectId}/files/content`,
          headers: bearer(alice.systemToken),
          payload: { path: 'a.txt', content: 'old line\n' },
        })
      ).statusCode,
    ).toBe(201);
    const patch = '*** Begin Patch\n*** Update File: a.txt\n@@\n-old line\n+new line\n*** Add File: notes/b.txt\n+bee\n*** End Patch\n';
    upstream.setDefault(toolThenText({ kind: 'custom_tool_call', name: 'apply_patch', input: patch }));
    await send('patch it');
    const transcript = page.getByTestId('transcript');
    await transcript.getByText('Turn completed').waitFor({ timeout: 30_000 });
    const card = transcript.locator('li[data-kind="file"]');
    await card.locator('.changed-files').getByText('a.txt', { exact: true }).waitFor();
    expect(await card.textContent()).not.toContain(workspace);
    await card.getByText('Show the diff').click();
    const diff = card.getByTestId('diff').first();
    await diff.locator('.add', { hasText: '+new line' }).waitFor();
    await diff.locator('.del', { hasText: '-old line' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    if (PHOTOGRAPH) await page.screenshot({ path: path.join(SCREENSHOTS, 'agent-diff-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 375, height: 740 });
    await card.scrollIntoViewIfNeeded();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    if (PHOTOGRAPH) await page.screenshot({ path: path.join(SCREENSHOTS, 'agent-diff-phone.png') });
    await page.setViewportSize({ width: 1280, height: 900 });

    // Download the file the turn changed, then delete it.
    await page.getByRole('button', { name: 'Refresh files' }).click();
    await page.getByRole('list', { name: 'Workspace files' }).getByRole('button', { name: 'a.txt' }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download a.txt' }).click()]);
    expect(download.suggestedFilename()).toBe('a.txt');
    expect(fs.readFileSync((await download.path())!, 'utf8')).toBe('new line\n');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete a.txt' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted a.txt.' }).waitFor();
    expect(fs.existsSync(path.join(workspace, 'a.txt'))).toBe(false);
    await expect.poll(() => page.getByRole('list', { name: 'Workspace files' }).getByRole('button', { name: 'a.txt' }).count()).toBe(0);

    // Rename, then delete the project.
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Project name').fill('Patched things');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { name: 'Patched things' }).waitFor();
    expect((await api('GET', `/api/v1/projects/${projectId}`)).json().name).toBe('Patched things');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete project' }).click();
    await page.waitForURL(/#\/projects$/);
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    await page.getByRole('link', { name: 'interrupts' }).waitFor();
    expect(await page.getByRole('link', { name: 'Patched things' }).count()).toBe(0);
    expect((await api('GET', `/api/v1/projects/${projectId}`)).statusCode).toBe(404);
    expect(fs.existsSync(workspace)).toBe(false);
  }, 120_000);

  it('tells an empty wallet once, in words, with a link to Money', async () => {
    const { page } = browser;
    await openProject('no credit');
    const available = (await api('GET', '/api/v1/wallet/status')).json().available.micros as number;
    await context.services.billing.adjust({
      customerId: alice.customerId,
      amountMicros: -available,
      reason: 'empty the wallet',
      wallet: 'token',
      idempotencyKey: `agent-view-empty-${alice.customerId}`,
    });
    upstream.setDefault(() => ({ kind: 'text', text: 'never reached' }));
    await send('hello?');
    const transcript = page.getByTestId('transcript');
    const credit = transcript.locator('li[data-kind="billing"]');
    await credit.waitFor({ timeout: 60_000 });
    await transcript.getByText(/Turn (failed|completed|interrupted)/).waitFor({ timeout: 60_000 });
    expect(await credit.count()).toBe(1);
    expect(await credit.textContent()).toContain('Your wallet has no credit left');
    expect(await transcript.textContent()).not.toMatch(/unexpected status|url:/);
    expect(await credit.getByRole('link', { name: /Money page/ }).getAttribute('href')).toBe('#/money');
    if (PHOTOGRAPH) await page.screenshot({ path: path.join(SCREENSHOTS, 'agent-credit-desktop.png') });
  }, 120_000);
});
