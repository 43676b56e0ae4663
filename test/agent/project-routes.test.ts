import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, operatorHeaders } from '../helpers/context.js';
import { dataOf, startAgentHarness, type AgentHarness } from './agent-harness.js';
import { SANDBOX_UNAVAILABLE } from '../sandbox/sandbox-support.js';

const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('agent routes: status, catalogues, validation, idempotency and ownership', () => {
  let harness: AgentHarness;
  let projectId: string;
  beforeAll(async () => {
    harness = await startAgentHarness();
    projectId = await harness.createProject();
  });
  afterAll(async () => harness?.close());

  const inject = (method: 'GET' | 'POST', url: string, payload?: unknown, headers: Record<string, string> = harness.customer.headers) =>
    harness.context.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('reports the live defaults, the app-server version and the caller’s runtime', async () => {
    const before = await inject('GET', '/api/v1/agent/status');
    expect(before.statusCode).toBe(200);
    expect(before.json().defaults).toEqual({
      model: 'power-ai',
      web_search: 'live',
      reasoning_effort: 'xhigh',
      approval_policy: 'never',
      sandbox: 'danger-full-access',
    });
    expect(before.json().runtime.app_server_version).toBe('0.147.0');
    await inject('POST', `/api/v1/projects/${projectId}/open`);
    const after = await inject('GET', '/api/v1/agent/status');
    expect(after.json().account).toMatchObject({ app_server_running: true, loaded_threads: 1 });
    expect(after.json().account.runtime_key.prefix).toEqual(expect.any(String));
    expect(after.json().runtime.running_processes).toBeGreaterThanOrEqual(1);
    // The runtime key never appears in logs.
    expect(harness.context.logs.join('\n')).not.toContain('SWITCHYARD_AGENT_TOKEN=');
  });

  it('gives the app-server a gateway-only key that its shell commands do not see', async () => {
    const projectId = await harness.createProject();
    const project = await harness.context.services.projects.requireOwned({ kind: 'operator', source: 'static', keyId: null }, projectId);
    await inject('POST', `/api/v1/projects/${projectId}/open`);
    const { toolThenText } = await import('./agent-harness.js');
    harness.upstream.setDefault(
      toolThenText({
        kind: 'tool_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'env > env.txt', workdir: project.workspaceDir }),
      }),
    );
    const started = await inject('POST', `/api/v1/projects/${projectId}/turns`, { input: 'dump env' });
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === started.json().turn_id);
    const fs = await import('node:fs');
    const environment = fs.readFileSync(`${project.workspaceDir}/env.txt`, 'utf8');
    expect(environment).toContain('PATH=');
    expect(environment).not.toContain('SWITCHYARD_AGENT_TOKEN');
    expect(environment).not.toMatch(/sy[a-z]?_[A-Za-z0-9]{20,}/);

    // The key itself works on the gateway only.
    const keyId = (
      await harness.context.storage.db
        .selectFrom('agent_runtime_keys')
        .select('key_id')
        .where('customer_id', '=', harness.customer.id)
        .executeTakeFirstOrThrow()
    ).key_id;
    const row = await harness.context.storage.db
      .selectFrom('api_keys')
      .select('policy_json')
      .where('id', '=', Number(keyId))
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.policy_json)).toEqual({ surfaces: ['gateway'], agentRuntime: true });
  });

  it('lists permission presets with their legacy sandboxPolicy and the available skills', async () => {
    const permissions = await inject('GET', '/api/v1/permissions');
    expect(permissions.statusCode).toBe(200);
    const ids = permissions.json().data.map((profile: { id: string }) => profile.id);
    expect(ids).toEqual(expect.arrayContaining([':read-only', ':workspace', ':danger-full-access']));
    expect(permissions.json().data.find((profile: { id: string }) => profile.id === ':danger-full-access').sandbox_policy).toEqual({
      type: 'dangerFullAccess',
    });
    const skills = await inject('GET', '/api/v1/skills');
    expect(skills.statusCode).toBe(200);
    expect(skills.json().data.length).toBeGreaterThan(0);
    expect(skills.json().data[0]).toEqual(expect.objectContaining({ name: expect.any(String), enabled: expect.any(Boolean) }));
  });

  it('refuses bad turn input with 422 and starts nothing', async () => {
    const url = `/api/v1/projects/${projectId}/turns`;
    const cases = [
      [{}, 'input'],
      [{ input: 'x', permissions: ':workspace', sandboxPolicy: { type: 'readOnly' } }, 'sandboxPolicy'],
      [{ input: 'x', effort: 'bogus' }, 'effort'],
      [{ input: 'x', approvalPolicy: 'sometimes' }, 'approvalPolicy'],
      [{ input: [{ type: 'image', url: 'https://example.com/cat.png' }] }, 'url'],
      [{ input: 'x', sandboxPolicy: { type: 'chroot' } }, 'type'],
      [{ input: 'x', model: 'no-such-model' }, 'model'],
      [{ input: [{ type: 'text', text: 'x' }, 42] }, 'input'],
      [{ input: { text: 'x' } }, 'input'],
    ] as const;
    const requestsBefore = harness.upstream.requests.length;
    for (const [payload, field] of cases) {
      const response = await inject('POST', url, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      expect(JSON.stringify(response.json().detail)).toContain(field);
    }
    expect(harness.upstream.requests.length).toBe(requestsBefore);
    const events = await harness.events(projectId);
    expect(events.filter((event) => event.type === 'turn/started')).toEqual([]);
  });

  it('accepts images as data: URLs and overrides, and returns the first result for a repeated Idempotency-Key', async () => {
    const headers = { ...harness.customer.headers, 'idempotency-key': 'turn-once-1' };
    const payload = {
      input: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', url: PIXEL },
      ],
      effort: 'high',
      sandboxPolicy: { type: 'workspaceWrite' },
      approvalPolicy: 'on-request',
    };
    const [first, second] = await Promise.all([
      inject('POST', `/api/v1/projects/${projectId}/turns`, payload, headers),
      inject('POST', `/api/v1/projects/${projectId}/turns`, payload, headers),
    ]);
    expect(first.statusCode).toBe(202);
    expect(second.json()).toEqual(first.json());
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === first.json().turn_id);
    const later = await inject('POST', `/api/v1/projects/${projectId}/turns`, payload, headers);
    expect(later.json()).toEqual(first.json());
    const reused = await inject('POST', `/api/v1/projects/${projectId}/turns`, { ...payload, effort: 'low' }, headers);
    expect(reused.statusCode).toBe(422);
    expect(reused.json().detail[0]).toMatchObject({ loc: ['header', 'idempotency-key'], type: 'idempotency_mismatch' });
    const turnStarts = (await harness.events(projectId)).filter((event) => event.type === 'turn/started');
    expect(turnStarts).toHaveLength(1);
    const call = harness.upstream.requests.filter((request) => request.path.endsWith('/responses')).at(-1)!;
    expect(call.body.reasoning.effort).toBe('high');
    expect(JSON.stringify(call.body.input)).toContain('data:image/png;base64,');
  });

  it('keeps the writable roots of a legacy workspaceWrite policy inside the project workspace', async () => {
    const projectId = await harness.createProject();
    const project = await harness.context.services.projects.requireOwned({ kind: 'operator', source: 'static', keyId: null }, projectId);
    const url = `/api/v1/projects/${projectId}/turns`;
    for (const root of ['/etc', '../', `${project.workspaceDir}/../other`]) {
      const outside = await inject('POST', url, { input: 'go', sandboxPolicy: { type: 'workspaceWrite', writableRoots: [root] } });
      expect(outside.statusCode, root).toBe(403);
    }
    expect((await harness.events(projectId)).filter((event) => event.type === 'turn/started')).toEqual([]);

    harness.upstream.setDefault(() => ({ kind: 'text', text: 'Roots set.' }));
    const inside = await inject('POST', url, { input: 'go', sandboxPolicy: { type: 'workspaceWrite', writableRoots: ['build/out'] } });
    expect(inside.statusCode).toBe(202);
    const settings = await harness.waitForEvent(projectId, (event) => event.type === 'thread/settings/updated');
    // Inside the service's sandbox (seccomp on, Codex's command sandbox in its Landlock mode) a workspaceWrite turn is
    // handed over as externalSandbox: the sandbox around the app-server confines writes to the customer's trees.
    if (SANDBOX_UNAVAILABLE === null)
      expect(dataOf(settings).threadSettings.sandboxPolicy).toEqual({ type: 'externalSandbox', networkAccess: 'restricted' });
    else
      expect(dataOf(settings).threadSettings.sandboxPolicy).toMatchObject({
        type: 'workspaceWrite',
        writableRoots: [`${project.workspaceDir}/build/out`],
      });
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === inside.json().turn_id);
  });

  it('answers 404 on every project route for another customer’s project, and for unknown projects', async () => {
    const other = await harness.context.services.customers.create({ email: `other-${Date.now()}@example.com` });
    const otherHeaders = bearer(other.systemToken.key);
    const routes: ['GET' | 'POST', string, unknown?][] = [
      ['GET', `/api/v1/projects/${projectId}`],
      ['POST', `/api/v1/projects/${projectId}/open`],
      ['GET', `/api/v1/projects/${projectId}/state`],
      ['GET', `/api/v1/projects/${projectId}/thread`],
      ['POST', `/api/v1/projects/${projectId}/turns`, { input: 'hi' }],
      ['POST', `/api/v1/projects/${projectId}/turns/some-turn/interrupt`],
      ['GET', `/api/v1/projects/${projectId}/approvals`],
      ['POST', `/api/v1/projects/${projectId}/approvals/apr_x/resolve`],
    ];
    for (const [method, url, payload] of routes) {
      const foreign = await inject(method, url, payload, otherHeaders);
      expect(foreign.statusCode, `${method} ${url}`).toBe(404);
      expect(JSON.stringify(foreign.json())).not.toContain('thread');
      const unknown = await inject(method, url.replace(projectId, 'prj_doesnotexist'), payload);
      expect(unknown.statusCode, `${method} ${url} unknown`).toBe(404);
    }
    // Nothing was started for the other customer.
    expect(harness.context.services.agent.supervisor.peek(other.customer.id)).toBeNull();
    const operator = await inject('GET', `/api/v1/projects/${projectId}/state`, undefined, operatorHeaders);
    expect(operator.statusCode).toBe(200);
  });
});
