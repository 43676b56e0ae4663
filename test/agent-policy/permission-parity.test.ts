/**
 * One permission selection means the same on the project and direct surfaces: each selection below is sent as a
 * project turn and as a direct turn, and both answer alike (accepted and run, or the same 422 field), and what
 * reached the app-server is the same translation. Real app-server, scripted upstream.
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

describe('permission selections: project and direct turns agree', () => {
  let harness: DirectHarness;
  beforeAll(async () => {
    harness = await startDirectHarness();
  });
  afterAll(async () => harness?.close());

  it('answers every selection alike on both surfaces and runs the accepted ones', async () => {
    const { context, customer } = harness;
    const projectId = await harness.createProject();
    await context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers: customer.headers });
    const thread = await context.app.inject({ method: 'POST', url: '/api/threads', headers: customer.headers, payload: {} });
    const threadId = thread.json().thread.id as string;

    for (const selection of SELECTIONS) {
      const project = await context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/turns`, headers: customer.headers, payload: { input: 'hi', ...selection } });
      const direct = await context.app.inject({ method: 'POST', url: '/api/turns', headers: customer.headers, payload: { threadId, input: 'hi', ...selection } });
      const label = JSON.stringify(selection);
      const accepted = (status: number) => status === 200 || status === 202;
      expect(accepted(project.statusCode), `${label}: project ${project.statusCode} ${project.body}, direct ${direct.statusCode} ${direct.body}`).toBe(accepted(direct.statusCode));
      if (!accepted(project.statusCode)) {
        expect(project.statusCode, label).toBe(422);
        expect(direct.statusCode, label).toBe(422);
        expect(project.json().detail.map((issue: { loc: unknown }) => issue.loc), label).toEqual(direct.json().detail.map((issue: { loc: unknown }) => issue.loc));
        continue;
      }
      expect(project.statusCode, `${label}: ${project.body}`).toBe(202);
      expect([200, 202], `${label}: ${direct.body}`).toContain(direct.statusCode);
      const projectTurn = project.json().turn_id as string;
      const directTurn = direct.json().turn_id as string;
      await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === projectTurn);
      await harness.waitForDirectEvent(customer.id, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === directTurn);
    }
  });
});
