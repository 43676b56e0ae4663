/**
 * The dashboard's live agent view in Chromium against the real service, the real app-server and the scripted
 * upstream: sign in, create and open a project, run a turn that asks for approval, approve it in the page,
 * watch the transcript and the wallet, edit a file with a stale save shown as a conflict, resume after a dropped
 * connection with Last-Event-ID, and see a reset frame; decline an approval, accept one for the session, and
 * interrupt a long turn.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayConfig, toolThenText } from '../agent/agent-harness.js';
import { signUp, type SignedUp } from '../chassis/support.js';
import { startModelUpstream, type ModelUpstream, type RecordedRequest, type Reply } from '../fakes/model-upstream.js';
import { openBrowser, seriousAccessibilityViolations, type BrowserSession } from '../helpers/browser.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { ensureWebBuilt } from '../helpers/web.js';

const operator = { kind: 'operator', source: 'static', keyId: null } as const;

/** True when the request carries the output of the tool call with this id (the model sees what the tool did). */
function answered(request: RecordedRequest, callId: string): boolean {
  const input = request.body?.input;
  return (
    Array.isArray(input) &&
    input.some((item: { type?: string; call_id?: string }) => item.type?.endsWith('_output') && item.call_id === callId)
  );
}

/** Calls exec_command once per id in order, each after the previous one's output came back, then answers text. */
function commandsThenText(workdir: string, calls: { id: string; cmd: string }[], text: string): (request: RecordedRequest) => Reply {
  return (request) => {
    const next = calls.find((call) => !answered(request, call.id));
    return next
      ? { kind: 'tool_call', name: 'exec_command', callId: next.id, arguments: JSON.stringify({ cmd: next.cmd, workdir }) }
      : { kind: 'text', text };
  };
}

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

  /** Web login in the browser: the page's own fetch sets the session cookies. */
  const signIn = async () => {
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
  };

  it('runs an approved agent turn, bills it, edits a file with a conflict shown, and shows a reset', async () => {
    const { page } = browser;
    await signIn();

    await page.goto('/dashboard.html#/projects');
    await page.getByLabel('Project name (optional)').fill('web demo');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/#\/projects\/prj_/);
    // Opening the project is a navigation: the focus lands on the view, not on the form that went away.
    await page.waitForFunction(() => document.activeElement?.id === 'main');
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

  it('declines an approval, accepts a command for the session, and interrupts a long turn', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
    await signIn();
    const created = await context.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: bearer(alice.systemToken),
      payload: { name: 'approvals' },
    });
    expect(created.statusCode).toBe(201);
    const projectId = created.json().id as string;
    const workspace = (await context.services.projects.requireOwned(operator, projectId)).workspaceDir;
    // What the app-server reports of the thread's turns, and every approval it asked for (the event log keeps
    // only the last ten events here).
    const read = async (url: string) => (await context.app.inject({ method: 'GET', url, headers: bearer(alice.systemToken) })).json();
    const turnEnds = async () =>
      ((await read(`/api/v1/projects/${projectId}/thread`)).thread.turns as { status: string }[]).map((turn) => turn.status);
    const approvalsAsked = async () =>
      ((await read(`/api/v1/projects/${projectId}/approvals?status=all`)).data as { decision: string | null }[]).map(
        (asked) => asked.decision,
      );

    await page.goto(`/dashboard.html#/projects/${encodeURIComponent(projectId)}`);
    await page.getByRole('heading', { name: 'approvals' }).waitFor();
    await page.getByTestId('stream-status').filter({ hasText: 'Live' }).waitFor({ timeout: 30_000 });
    // The turn settings stay for every turn sent from this page.
    await page.getByText('Turn settings').click();
    await page.getByLabel('Approval policy').selectOption('untrusted');
    await page.getByLabel('Permissions').selectOption(':workspace');
    const send = async (prompt: string) => {
      await page.getByRole('textbox', { name: 'Prompt', exact: true }).fill(prompt);
      await page.getByRole('button', { name: 'Send' }).click();
    };
    const transcript = page.getByTestId('transcript');
    const approval = page.getByTestId('approval');

    // Decline: the command does not run; the model is told so and the turn goes on to its answer.
    upstream.setDefault(commandsThenText(workspace, [{ id: 'call_declined', cmd: 'echo no > declined.txt' }], 'Skipped it.'));
    await send('write declined.txt');
    await approval.filter({ hasText: 'echo no > declined.txt' }).waitFor({ timeout: 30_000 });
    await approval.getByRole('button', { name: 'Decline' }).click();
    await transcript.getByText('Approval declined').waitFor({ timeout: 30_000 });
    await transcript
      .locator('li[data-kind="command"]')
      .filter({ hasText: 'echo no > declined.txt' })
      .filter({ hasText: 'declined' })
      .waitFor();
    await transcript.locator('li[data-kind="agent"]').filter({ hasText: 'Skipped it.' }).waitFor({ timeout: 30_000 });
    await transcript.getByText('Turn completed').waitFor();
    await approval.waitFor({ state: 'detached' });
    expect(fs.existsSync(path.join(workspace, 'declined.txt'))).toBe(false);
    await expect.poll(turnEnds, { timeout: 10_000 }).toEqual(['completed']);
    expect(await approvalsAsked()).toEqual(['decline']);

    // Accept for session: the same command asked again in the same turn runs without a second question.
    upstream.setDefault(
      commandsThenText(
        workspace,
        [
          { id: 'call_session_1', cmd: 'echo again >> session.txt' },
          { id: 'call_session_2', cmd: 'echo again >> session.txt' },
        ],
        'Ran it twice.',
      ),
    );
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await send('append to session.txt twice');
    await approval.filter({ hasText: 'echo again >> session.txt' }).waitFor({ timeout: 30_000 });
    await approval.getByRole('button', { name: 'Accept for session' }).click();
    await transcript.locator('li[data-kind="agent"]').filter({ hasText: 'Ran it twice.' }).waitFor({ timeout: 30_000 });
    await transcript.getByText('Turn completed').nth(1).waitFor();
    await expect.poll(turnEnds, { timeout: 10_000 }).toEqual(['completed', 'completed']);
    expect(await approvalsAsked()).toEqual(['decline', 'acceptForSession']);
    expect(await transcript.getByText('Approval accepted for this session').count()).toBe(1);
    expect(await transcript.locator('li[data-kind="command"]').filter({ hasText: 'echo again >> session.txt' }).count()).toBe(2);
    expect(fs.readFileSync(path.join(workspace, 'session.txt'), 'utf8')).toBe('again\nagain\n');

    // Interrupt: the model never answers; the button ends the turn, and the transcript says it was interrupted.
    const requestsBefore = upstream.requests.length;
    upstream.setDefault(() => ({ kind: 'hang' }));
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await send('think for a long time');
    await upstream.waitForRequests(requestsBefore + 1, 30_000);
    await page.getByRole('button', { name: 'Interrupt the turn' }).click();
    await transcript.getByText('Turn interrupted').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Send' }).waitFor();
    expect(await page.getByRole('button', { name: 'Interrupt the turn' }).count()).toBe(0);
    await expect.poll(turnEnds, { timeout: 10_000 }).toEqual(['completed', 'completed', 'interrupted']);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  }, 150_000);
});
