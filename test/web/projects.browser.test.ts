/**
 * The dashboard's live agent view in Chromium against the real service, the real app-server and the scripted
 * upstream: sign in, create and open a project, run a turn that asks for approval, approve it in the page,
 * watch the transcript and the wallet, edit a file with a stale save shown as a conflict, resume after a dropped
 * connection with Last-Event-ID, and see a reset frame.
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

describe('dashboard projects view (Chromium)', () => {
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
        agent: { requestTimeoutMs: 20_000, stopGraceMs: 500, restartBackoffInitialMs: 50, eventRetention: 10 },
      } as never,
    });
    baseURL = await context.listen();
    alice = await signUp(context, 'alice');
    await context.services.billing.adjust({
      customerId: alice.customerId,
      amountMicros: 50_000_000,
      reason: 'browser test',
      wallet: 'token',
      idempotencyKey: `web-${alice.customerId}`,
    });
    browser = await openBrowser({ baseURL });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await context?.close();
    await upstream?.close();
  });

  const available = async () =>
    (await context.app.inject({ method: 'GET', url: '/api/v1/wallet/status', headers: bearer(alice.systemToken) })).json().available
      .micros as number;

  it('runs an approved agent turn, bills it, edits a file with a conflict shown, and shows a reset', async () => {
    const { page } = browser;
    // Web login in the browser: the page's own fetch sets the session cookies.
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

    await page.goto('/dashboard.html#/projects');
    await page.getByLabel('Project name (optional)').fill('web demo');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/#\/projects\/prj_/);
    const projectId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
    const project = await context.services.projects.requireOwned(operator, projectId);
    await page.getByRole('heading', { name: 'web demo' }).waitFor();
    await page.getByTestId('stream-status').filter({ hasText: 'Live' }).waitFor({ timeout: 30_000 });

    const before = await available();
    upstream.setDefault(
      toolThenText({
        kind: 'tool_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'echo hi > x.txt', workdir: project.workspaceDir }),
      }),
    );
    await page.getByRole('textbox', { name: 'Prompt', exact: true }).fill('write x.txt please');
    await page.getByText('Turn settings').click();
    await page.getByLabel('Approval policy').selectOption('untrusted');
    await page.getByLabel('Permissions').selectOption(':workspace');
    await page.getByRole('button', { name: 'Send' }).click();

    // The approval shows with the command; nothing ran yet.
    const approval = page.getByTestId('approval');
    await approval.filter({ hasText: 'echo hi > x.txt' }).waitFor({ timeout: 30_000 });
    expect(fs.existsSync(path.join(project.workspaceDir, 'x.txt'))).toBe(false);
    await page.getByRole('button', { name: 'Interrupt the turn' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await approval.getByRole('button', { name: 'Accept', exact: true }).click();

    const transcript = page.getByTestId('transcript');
    await transcript.getByText('Turn completed').waitFor({ timeout: 30_000 });
    await transcript.locator('li[data-kind="user"]').filter({ hasText: 'write x.txt please' }).waitFor();
    await transcript.locator('li[data-kind="agent"]').filter({ hasText: 'Done.' }).waitFor();
    await transcript.locator('li[data-kind="command"]').filter({ hasText: 'echo hi > x.txt' }).waitFor();
    await approval.waitFor({ state: 'detached' });
    expect(fs.readFileSync(path.join(project.workspaceDir, 'x.txt'), 'utf8')).toBe('hi\n');

    // The wallet went down, billed to the System Token the session stands for, on the projects surface.
    const after = await available();
    expect(after).toBeLessThan(before);
    const calls = await context.storage.db
      .selectFrom('billing_calls')
      .select(['key_id', 'surface', 'status'])
      .where('customer_id', '=', alice.customerId)
      .execute();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls) expect(call).toMatchObject({ key_id: alice.systemTokenId, surface: 'projects', status: 'settled' });
    await page
      .getByTestId('project-balance')
      .filter({ hasText: (after / 1_000_000).toFixed(4) })
      .waitFor();

    // Edit x.txt; another writer changes it first: the stale save is refused and shown, the file kept.
    await page.getByRole('button', { name: 'x.txt' }).click();
    const editor = page.getByLabel('Editing x.txt');
    expect(await editor.inputValue()).toBe('hi\n');
    const other = await context.app.inject({
      method: 'PUT',
      url: `/api/v1/projects/${projectId}/files/content`,
      headers: bearer(alice.systemToken),
      payload: { path: 'x.txt', content: 'changed elsewhere\n' },
    });
    expect(other.statusCode).toBe(200);
    await editor.fill('my edit\n');
    await page.getByRole('button', { name: 'Save x.txt' }).click();
    await page.getByRole('alert').filter({ hasText: 'Conflict: x.txt changed since you opened it' }).waitFor();
    expect(fs.readFileSync(path.join(project.workspaceDir, 'x.txt'), 'utf8')).toBe('changed elsewhere\n');
    expect(await editor.inputValue()).toBe('my edit\n');
    await page.getByRole('button', { name: 'Reload x.txt' }).click();
    await page.waitForFunction(
      () => (document.querySelector('textarea.editor') as HTMLTextAreaElement | null)?.value === 'changed elsewhere\n',
    );
    await editor.fill('final\n');
    await page.getByRole('button', { name: 'Save x.txt' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved x.txt.' }).waitFor();
    expect(fs.readFileSync(path.join(project.workspaceDir, 'x.txt'), 'utf8')).toBe('final\n');

    // The connection drops: the EventSource comes back on its own with Last-Event-ID, and the next turn streams
    // in without any earlier entry repeated.
    const resumed: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/events')) void request.allHeaders().then((headers) => resumed.push(headers['last-event-id'] ?? ''));
    });
    context.app.server.closeAllConnections();
    await expect.poll(() => resumed.length, { timeout: 20_000 }).toBeGreaterThan(0);
    expect(Number(resumed[0])).toBeGreaterThan(0);
    await page.getByTestId('stream-status').filter({ hasText: 'Live' }).waitFor({ timeout: 20_000 });
    upstream.setDefault(() => ({ kind: 'text', text: 'Second answer.' }));
    await page.getByRole('textbox', { name: 'Prompt', exact: true }).fill('and now?');
    await page.getByRole('button', { name: 'Send' }).click();
    await transcript.locator('li[data-kind="agent"]').filter({ hasText: 'Second answer.' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await transcript.getByText('Turn completed').nth(1).waitFor();
    expect(await transcript.getByText('Turn completed').count()).toBe(2);
    expect(await transcript.locator('li[data-kind="user"]').filter({ hasText: 'write x.txt please' }).count()).toBe(1);
    expect(await transcript.locator('li[data-kind="command"]').count()).toBe(1);

    // The turns wrote more events than are kept: a fresh load starts with a reset frame, then the kept tail.
    await context.services.projectEvents.prune();
    await page.reload();
    await transcript.locator('li[data-kind="reset"]').filter({ hasText: 'Earlier events are no longer kept' }).waitFor({ timeout: 20_000 });
    await transcript.getByText('Turn completed').waitFor();

    // Phone width and dark scheme: no sideways scrolling, no serious accessibility finding.
    await page.setViewportSize({ width: 375, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  }, 150_000);
});
