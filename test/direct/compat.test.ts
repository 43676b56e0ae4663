import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadPermissions, turnPermissions } from '../../src/agent/permissions.js';
import { isAppError } from '../../src/kernel/errors.js';
import { dataOf, startDirectHarness, type Caller, type DirectHarness } from './support.js';
import { SANDBOX_UNAVAILABLE } from '../sandbox/sandbox-support.js';

describe('permission selection mapping', () => {
  it('maps legacy sandbox policies and profiles for thread start', () => {
    expect(threadPermissions({ sandboxPolicy: { type: 'readOnly' } })).toEqual({ sandbox: 'read-only' });
    expect(threadPermissions({ sandboxPolicy: { type: 'dangerFullAccess' } })).toEqual({ sandbox: 'danger-full-access' });
    expect(threadPermissions({ sandboxPolicy: { type: 'workspaceWrite', networkAccess: true } })).toEqual({
      sandbox: 'workspace-write',
      config: {
        'sandbox_workspace_write.writable_roots': [],
        'sandbox_workspace_write.network_access': true,
        'sandbox_workspace_write.exclude_tmpdir_env_var': false,
        'sandbox_workspace_write.exclude_slash_tmp': false,
      },
    });
    expect(threadPermissions({ sandbox: 'workspaceWrite' })).toEqual({ sandbox: 'workspace-write' });
    expect(threadPermissions({ permissions: 'workspace' })).toEqual({ permissions: ':workspace' });
    expect(threadPermissions({ permissionProfile: { id: ':read-only' } })).toEqual({ permissions: ':read-only' });
    expect(threadPermissions({})).toEqual({});
  });

  it('maps turn-level selections and fills the legacy policy defaults', () => {
    expect(turnPermissions({ sandboxPolicy: { type: 'readOnly' } })).toEqual({ sandboxPolicy: { type: 'readOnly', networkAccess: false } });
    expect(turnPermissions({ sandbox: 'danger-full-access' })).toEqual({ sandboxPolicy: { type: 'dangerFullAccess' } });
    expect(turnPermissions({ permissionProfile: ':danger-full-access' })).toEqual({ permissions: ':danger-full-access' });
    expect(turnPermissions({ sandboxPolicy: { type: 'externalSandbox', networkAccess: 'enabled' } })).toEqual({
      sandboxPolicy: { type: 'externalSandbox', networkAccess: 'enabled' },
    });
  });

  it('refuses a profile together with a sandbox, two different profiles, and unknown kinds', () => {
    const refused = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(isAppError(error) && error.code === 'VALIDATION_FAILED').toBe(true);
        return (error as { issues: { loc: unknown[] }[] }).issues.map((issue) => issue.loc.join('.'));
      }
      throw new Error('not refused');
    };
    expect(refused(() => threadPermissions({ permissions: ':workspace', sandbox: 'read-only' }))).toEqual(['body.permissions']);
    expect(refused(() => turnPermissions({ permissions: ':workspace', sandboxPolicy: { type: 'readOnly' } }))).toEqual([
      'body.sandboxPolicy',
    ]);
    expect(refused(() => turnPermissions({ permissions: ':workspace', permissionProfile: ':read-only' }))).toEqual([
      'body.permissionProfile',
    ]);
    expect(refused(() => turnPermissions({ sandboxPolicy: { type: 'sometimes' } }))).toEqual(['body.sandboxPolicy.type']);
    expect(refused(() => threadPermissions({ sandboxPolicy: { type: 'externalSandbox' } }))).toEqual(['body.sandboxPolicy.type']);
    expect(refused(() => threadPermissions({ sandbox: 'everything' }))).toEqual(['body.sandbox']);
  });
});

describe('legacy sandboxPolicy and permission profiles against the app-server', () => {
  let harness: DirectHarness;
  let alice: Caller;
  let rpcKey: { authorization: string };
  let root: string;
  beforeAll(async () => {
    harness = await startDirectHarness();
    alice = { id: harness.customer.id, headers: harness.customer.headers };
    rpcKey = await harness.userKey(alice, ['projects', 'rpc']);
    root = await harness.context.services.direct.workspaceRoot(alice.id);
  });
  afterAll(async () => harness?.close());

  const post = (url: string, payload: unknown) =>
    harness.context.app.inject({ method: 'POST', url, headers: alice.headers, payload: payload as object });

  /** Starts a turn and returns the thread settings the app-server reported for it. */
  async function settingsAfterTurn(threadId: string, overrides: Record<string, unknown>) {
    const turn = await post('/api/turns', { thread_id: threadId, input: 'go', ...overrides });
    expect(turn.statusCode, turn.body).toBe(202);
    const turnId = turn.json().turn_id as string;
    await harness.waitForDirectEvent(alice.id, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === turnId);
    const events = await harness.directEvents(alice.id);
    const updates = events.filter((event) => event.type === 'thread/settings/updated' && dataOf(event).threadId === threadId);
    return updates.length === 0 ? null : dataOf(updates.at(-1)!).threadSettings;
  }

  it('starts threads with the legacy sandboxPolicy or a profile and reads the sandbox back on resume', async () => {
    const legacy = await post('/api/threads', { cwd: 'legacy', sandbox_policy: { type: 'readOnly' } });
    expect(legacy.statusCode).toBe(201);
    expect(legacy.json()).toMatchObject({ sandbox: { type: 'readOnly' }, active_permission_profile: null });
    const profiled = await post('/api/threads', { cwd: 'profiled', permissionProfile: ':workspace' });
    expect(profiled.json()).toMatchObject({ sandbox: { type: 'workspaceWrite' }, active_permission_profile: { id: ':workspace' } });

    const both = await post('/api/threads', { cwd: 'both', sandbox: 'read-only', permissions: ':workspace' });
    expect(both.statusCode).toBe(422);
    expect((await harness.context.storage.db.selectFrom('direct_threads').select('cwd').execute()).map((row) => row.cwd)).not.toContain(
      path.join(root, 'both'),
    );

    // After a first turn the thread is saved; resume reports what the app-server keeps.
    const legacyId = legacy.json().thread.id as string;
    await settingsAfterTurn(legacyId, {});
    const resumed = await post(`/api/threads/${legacyId}/resume`, {});
    expect(resumed.json().sandbox).toMatchObject({ type: 'readOnly' });
  });

  it('applies turn-level sandboxPolicy (clients ≤ 0.135.0) and permissions (newer clients) on the direct routes', async () => {
    const threadId = (await post('/api/threads', { cwd: 'turns' })).json().thread.id as string;
    const legacy = await settingsAfterTurn(threadId, {
      sandboxPolicy: { type: 'workspaceWrite', writableRoots: ['turns/out'], networkAccess: false },
    });
    expect(legacy.sandboxPolicy).toMatchObject({ type: 'workspaceWrite', writableRoots: [path.join(root, 'turns/out')] });
    expect(legacy.activePermissionProfile).toBeNull();
    const profiled = await settingsAfterTurn(threadId, { permissions: ':read-only' });
    expect(profiled.sandboxPolicy).toMatchObject({ type: 'readOnly' });
    expect(profiled.activePermissionProfile).toMatchObject({ id: ':read-only' });

    const outside = await post('/api/turns', {
      thread_id: threadId,
      input: 'go',
      sandbox_policy: { type: 'workspaceWrite', writableRoots: ['/etc'] },
    });
    expect(outside.statusCode).toBe(403);
  });

  it('translates the same selections on the passthrough', async () => {
    const started = await harness.rpc(rpcKey, 'thread/start', { cwd: 'rpc', sandboxPolicy: { type: 'readOnly' } });
    expect(started.result.sandbox).toMatchObject({ type: 'readOnly' });
    const threadId = started.result.thread.id as string;
    expect((await harness.rpc(rpcKey, 'thread/start', { sandbox: 'read-only', permissions: ':workspace' })).error.code).toBe(-32602);

    const turn = await harness.rpc(rpcKey, 'turn/start', {
      threadId,
      input: [{ type: 'text', text: 'go' }],
      permissionProfile: ':workspace',
    });
    expect(turn.error).toBeUndefined();
    await harness.waitForDirectEvent(alice.id, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === turn.result.turn.id);
    const updated = (await harness.directEvents(alice.id))
      .filter((event) => event.type === 'thread/settings/updated' && dataOf(event).threadId === threadId)
      .at(-1)!;
    expect(dataOf(updated).threadSettings).toMatchObject({
      sandboxPolicy: { type: 'workspaceWrite' },
      activePermissionProfile: { id: ':workspace' },
    });

    const escape = await harness.rpc(rpcKey, 'turn/start', {
      threadId,
      input: [{ type: 'text', text: 'go' }],
      sandboxPolicy: { type: 'workspaceWrite', writableRoots: ['/'] },
    });
    expect(escape.error.code).toBe(-32602);
    const settings = await harness.rpc(rpcKey, 'thread/settings/update', {
      threadId,
      sandboxPolicy: { type: 'dangerFullAccess' },
      permissions: ':read-only',
    });
    expect(settings.error.code).toBe(-32602);
  });

  it('accepts both on the project routes too', async () => {
    const projectId = await harness.createProject();
    expect((await post(`/api/v1/projects/${projectId}/open`, {})).statusCode).toBe(200);
    const projectSettings = async (overrides: Record<string, unknown>) => {
      const turn = await post(`/api/v1/projects/${projectId}/turns`, { input: 'go', ...overrides });
      expect(turn.statusCode, turn.body).toBe(202);
      await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === turn.json().turn_id);
      const updates = (await harness.events(projectId)).filter((event) => event.type === 'thread/settings/updated');
      return dataOf(updates.at(-1)!).threadSettings;
    };
    expect((await projectSettings({ sandboxPolicy: { type: 'readOnly' } })).sandboxPolicy).toMatchObject({ type: 'readOnly' });
    const profiled = await projectSettings({ permissionProfile: ':workspace' });
    // Inside the service's sandbox (Codex's command sandbox in Landlock mode) the :workspace profile is handed over as
    // externalSandbox without network: the sandbox around the app-server confines it.
    if (SANDBOX_UNAVAILABLE === null) expect(profiled.sandboxPolicy).toEqual({ type: 'externalSandbox', networkAccess: 'restricted' });
    else expect(profiled).toMatchObject({ sandboxPolicy: { type: 'workspaceWrite' }, activePermissionProfile: { id: ':workspace' } });

    // The project's thread is readable on the direct surface but driven only through the project routes.
    const threadId = (
      await harness.context.app.inject({ method: 'GET', url: `/api/v1/projects/${projectId}/thread`, headers: alice.headers })
    ).json().thread.id as string;
    const read = await harness.context.app.inject({ method: 'GET', url: `/api/threads/${threadId}`, headers: alice.headers });
    expect(read.json().project_id).toBe(projectId);
    expect((await post('/api/turns', { thread_id: threadId, input: 'sideways' })).statusCode).toBe(409);
    expect((await harness.rpc(rpcKey, 'turn/start', { threadId, input: [{ type: 'text', text: 'sideways' }] })).error.message).toMatch(
      /managed project/,
    );
  });
});
