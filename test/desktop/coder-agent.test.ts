/**
 * A coder project's workspace is a managed agent project: the real app-server runs a turn in it (the model call
 * through the gateway to the scripted upstream), the agent sees the project's database file, and DELETE waits
 * for the running turn (409) instead of pulling the workspace from under it.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentHarness, type AgentHarness } from '../agent/agent-harness.js';

describe('desktop coder project: agent turns in its workspace', () => {
  let harness: AgentHarness;
  beforeAll(async () => {
    harness = await startAgentHarness();
  });
  afterAll(async () => harness?.close());

  it('runs a turn in the coder workspace; DELETE during the turn is 409, after it 204', async () => {
    const { context, customer, upstream } = harness;
    const created = await context.app.inject({
      method: 'POST',
      url: '/api/v1/desktop/coder/projects',
      headers: customer.headers,
      payload: { name: 'agentic' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const projectId = created.json().project.project_id as string;

    const opened = await context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers: customer.headers });
    expect(opened.statusCode, opened.body).toBe(200);
    upstream.enqueue({ kind: 'text', text: 'Working on the database schema, slowly.', chunks: 8, chunkDelayMs: 250 });
    const started = await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: customer.headers,
      payload: { input: 'design the schema' },
    });
    expect(started.statusCode, started.body).toBe(202);
    await harness.waitForEvent(projectId, (event) => event.type === 'item/agentMessage/delta');

    const busy = await context.app.inject({ method: 'DELETE', url: '/api/v1/desktop/coder/projects/agentic', headers: customer.headers });
    expect(busy.statusCode, busy.body).toBe(409);
    const workspace = (
      await context.storage.db.selectFrom('projects').select('workspace_dir').where('id', '=', projectId).executeTakeFirstOrThrow()
    ).workspace_dir;
    expect(fs.existsSync(`${workspace}/database.sqlite`)).toBe(true);
    const listed = await context.app.inject({ method: 'GET', url: '/api/v1/desktop/coder/projects', headers: customer.headers });
    expect(listed.json().data[0]).toMatchObject({ name: 'agentic', status: 'active' });

    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed', 30_000);
    const done = await context.app.inject({ method: 'DELETE', url: '/api/v1/desktop/coder/projects/agentic', headers: customer.headers });
    expect(done.statusCode, done.body).toBe(204);
    expect(fs.existsSync(workspace)).toBe(false);
    expect((await context.app.inject({ method: 'GET', url: `/api/v1/projects/${projectId}`, headers: customer.headers })).statusCode).toBe(
      404,
    );
  }, 60_000);
});
