/**
 * One selection means the same on the project and direct surfaces: each permission, model, effort and approval
 * selection below is sent as a project turn and as a direct turn, and both answer alike (accepted and run, or the
 * same 422 fields). A refusal of the app-server reads as our message on every surface, never its configuration
 * text. Real app-server, scripted upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, startDirectHarness, type DirectHarness } from '../direct/support.js';

const SELECTIONS: Array<Record<string, unknown>> = [
  { permissions: 'workspace' },
  { permissions: ':workspace' },
  { permissions: { id: ':workspace' } },
  { permissionProfile: 'read-only' },
  { permission_profile: ':danger-full-access' },
  { sandbox: 'workspace-write' },
  { sandboxPolicy: { type: 'workspaceWrite' } },
  { sandbox_policy: { type: 'readOnly' } },
  { permissions: { id: 5 } },
  { permissions: '' },
  { permissions: ':workspace', sandboxPolicy: { type: 'readOnly' } },
  { permissions: ':workspace', permissionProfile: ':read-only' },
  { sandboxPolicy: { type: 'bogus' } },
  { sandboxPolicy: 'workspaceWrite' },
  { sandbox: 'everything' },
];

/** Model, effort and approval selections: the same validator decides on both surfaces. */
const SETTINGS: Array<Record<string, unknown>> = [
  { model: 'power-ai' },
  { model: 'no-such-model' },
  { effort: 'high' },
  { effort: 'bogus' },
  { effort: 'none' },
  { effort: 'minimal' },
  { model: 'power-ai', effort: 'xhigh' },
  { model: 'power-ai', effort: 'minimal' },
  { model: 'no-such-model', effort: 'high' },
  { approvalPolicy: 'never' },
  { approvalPolicy: 'sometimes' },
  { approval_policy: 'on-request' },
  { approval_policy: 'sometimes' },
];

describe('turn selections: project and direct turns agree', () => {
  let harness: DirectHarness;
  beforeAll(async () => {
    harness = await startDirectHarness();
  });
  afterAll(async () => harness?.close());

  /** Sends each selection as a project turn and as a direct turn; both answer alike, accepted turns run to the end. */
  async function sendToBoth(selections: Array<Record<string, unknown>>): Promise<void> {
    const { context, customer } = harness;
    const projectId = await harness.createProject();
    await context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers: customer.headers });
    const thread = await context.app.inject({ method: 'POST', url: '/api/threads', headers: customer.headers, payload: {} });
    const threadId = thread.json().thread.id as string;

    for (const selection of selections) {
      const project = await context.app.inject({
        method: 'POST',
        url: `/api/v1/projects/${projectId}/turns`,
        headers: customer.headers,
        payload: { input: 'hi', ...selection },
      });
      const direct = await context.app.inject({
        method: 'POST',
        url: '/api/turns',
        headers: customer.headers,
        payload: { threadId, input: 'hi', ...selection },
      });
      const label = JSON.stringify(selection);
      const accepted = (status: number) => status === 200 || status === 202;
      expect(
        accepted(project.statusCode),
        `${label}: project ${project.statusCode} ${project.body}, direct ${direct.statusCode} ${direct.body}`,
      ).toBe(accepted(direct.statusCode));
      if (!accepted(project.statusCode)) {
        expect(project.statusCode, label).toBe(422);
        expect(direct.statusCode, label).toBe(422);
        expect(
          project.json().detail.map((issue: { loc: unknown }) => issue.loc),
          label,
        ).toEqual(direct.json().detail.map((issue: { loc: unknown }) => issue.loc));
        continue;
      }
      expect(project.statusCode, `${label}: ${project.body}`).toBe(202);
      expect([200, 202], `${label}: ${direct.body}`).toContain(direct.statusCode);
      const projectTurn = project.json().turn_id as string;
      const directTurn = direct.json().turn_id as string;
      await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === projectTurn);
      await harness.waitForDirectEvent(customer.id, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === directTurn);
    }
  }

  it('answers every permission selection alike on both surfaces and runs the accepted ones', async () => {
    await sendToBoth(SELECTIONS);
  });

  it('answers every model, effort and approval selection alike on both surfaces', async () => {
    await sendToBoth(SETTINGS);
  });

  it('refuses the same model, effort and approval selections on the passthrough, naming the same fields', async () => {
    const { context, customer } = harness;
    const rpcKey = await harness.userKey(customer, ['projects', 'rpc']);
    const thread = await context.app.inject({ method: 'POST', url: '/api/threads', headers: customer.headers, payload: {} });
    const threadId = thread.json().thread.id as string;
    const input = [{ type: 'text', text: 'hi', text_elements: [] }];
    for (const selection of SETTINGS.filter((entry) => !('approval_policy' in entry))) {
      const direct = await context.app.inject({
        method: 'POST',
        url: '/api/turns',
        headers: customer.headers,
        payload: { threadId, input: 'hi', ...selection },
      });
      if (direct.statusCode !== 422) {
        await harness.waitForDirectEvent(
          customer.id,
          (event) => event.type === 'turn/completed' && dataOf(event).turn.id === direct.json().turn_id,
        );
        continue;
      }
      const rpc = await harness.rpc(rpcKey, 'turn/start', { threadId, input, ...selection });
      const label = JSON.stringify(selection);
      expect(rpc.error?.code, `${label}: ${JSON.stringify(rpc)}`).toBe(-32602);
      const locs = direct.json().detail.map((issue: { loc: string[] }) => ['params', ...issue.loc.slice(1)]);
      expect(
        rpc.error.data.issues.map((issue: { loc: unknown }) => issue.loc),
        label,
      ).toEqual(locs);
    }
    const accepted = await harness.rpc(rpcKey, 'turn/start', { threadId, input, model: 'power-ai', effort: 'xhigh' });
    expect(accepted.result?.turn?.id, JSON.stringify(accepted)).toEqual(expect.any(String));
    await harness.waitForDirectEvent(
      customer.id,
      (event) => event.type === 'turn/completed' && dataOf(event).turn.id === accepted.result.turn.id,
    );
  });

  it('answers a profile the app-server does not know with our message on both surfaces, never its configuration text', async () => {
    const { context, customer } = harness;
    const projectId = await harness.createProject();
    await context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers: customer.headers });
    const thread = await context.app.inject({ method: 'POST', url: '/api/threads', headers: customer.headers, payload: {} });
    const threadId = thread.json().thread.id as string;
    const selection = { permissions: ':no-such-profile' };
    const project = await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: customer.headers,
      payload: { input: 'hi', ...selection },
    });
    const direct = await context.app.inject({
      method: 'POST',
      url: '/api/turns',
      headers: customer.headers,
      payload: { threadId, input: 'hi', ...selection },
    });
    const rpcKey = await harness.userKey(customer, ['projects', 'rpc']);
    const rpc = await harness.rpc(rpcKey, 'turn/start', {
      threadId,
      input: [{ type: 'text', text: 'hi', text_elements: [] }],
      ...selection,
    });
    // The app-server's own answer names its configuration ("failed to load configuration: default_permissions …").
    const internal = /configuration|default_permissions|built-in/i;
    for (const [surface, response] of [
      ['project', project],
      ['direct', direct],
    ] as const) {
      expect(response.statusCode, `${surface}: ${response.body}`).toBe(422);
      expect(response.json().detail, surface).toEqual([
        expect.objectContaining({ loc: ['body', 'permissions'], msg: expect.stringContaining(':no-such-profile') }),
      ]);
      expect(response.body, surface).not.toMatch(internal);
    }
    expect(rpc.error.code, JSON.stringify(rpc)).toBe(-32602);
    expect(rpc.error.data.issues[0].loc).toEqual(['params', 'permissions']);
    expect(JSON.stringify(rpc)).not.toMatch(internal);
  });
});
