/**
 * An agent turn with a command, through the real app-server, as a trace (SDK in-memory exporter): the turn's span
 * sits under the request that started it, and its model calls, its command and the command's approval are its
 * children. Without the opt-in neither the prompt nor the command text is recorded, and no key ever is. The
 * turn's billed calls record the thread and turn they served.
 */
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { installTracing, type TracingHandle } from '../../src/telemetry/index.js';
import { dataOf, startAgentHarness, toolThenText, type AgentHarness } from '../agent/agent-harness.js';

const operator = { kind: 'operator', source: 'static', keyId: null } as const;
const PROMPT = 'please run the marker command';
const COMMAND = 'echo traced-marker-7 > traced.txt';

describe('agent turn traces (real app-server)', () => {
  let exporter: InMemorySpanExporter;
  let tracing: TracingHandle;
  let harness: AgentHarness;
  beforeAll(async () => {
    exporter = new InMemorySpanExporter();
    tracing = await installTracing({
      exporter,
      serviceName: 'switchyard-test',
      serviceVersion: '0',
      instanceId: 'node-a',
      recordContent: false,
      immediate: true,
    });
    harness = await startAgentHarness({ clock: new FakeClock(Date.now()) });
  });
  afterAll(async () => {
    await harness?.close();
    await tracing?.shutdown();
  });

  it('a turn with an approved command: the turn span holds its model calls, the approval and the command', async () => {
    const projectId = await harness.createProject();
    const project = await harness.context.services.projects.requireOwned(operator, projectId);
    const post = (url: string, payload?: object) =>
      harness.context.app.inject({ method: 'POST', url, headers: harness.customer.headers, payload });
    expect((await post(`/api/v1/projects/${projectId}/open`)).statusCode).toBe(200);
    harness.upstream.setDefault(
      toolThenText({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: COMMAND, workdir: project.workspaceDir }) }),
    );
    const started = await post(`/api/v1/projects/${projectId}/turns`, {
      input: PROMPT,
      approvalPolicy: 'untrusted',
      permissions: ':workspace',
    });
    expect(started.statusCode).toBe(202);
    const turnId = started.json().turn_id as string;
    const approval = dataOf(await harness.waitForEvent(projectId, (event) => event.type === 'approval/requested'));
    expect((await post(`/api/v1/projects/${projectId}/approvals/${approval.request_id}/resolve`)).statusCode).toBe(200);
    expect(dataOf(await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed')).turn.status).toBe('completed');

    let spans: ReadableSpan[] = [];
    await expect
      .poll(
        () => {
          spans = exporter.getFinishedSpans();
          const turn = spans.find((span) => span.name === 'agent.turn');
          return (
            turn !== undefined &&
            spans.filter(
              (span) => span.parentSpanContext?.spanId === turn.spanContext().spanId && span.attributes['gen_ai.operation.name'] === 'chat',
            ).length >= 2
          );
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    const turn = spans.find((span) => span.name === 'agent.turn')!;
    expect(turn.attributes).toMatchObject({
      'switchyard.turn_id': turnId,
      'switchyard.project_id': projectId,
      'switchyard.turn_status': 'completed',
    });
    const starter = spans.find((span) => span.spanContext().spanId === turn.parentSpanContext?.spanId)!;
    expect(starter.name).toBe('POST /api/v1/projects/:projectId/turns');
    const children = spans.filter((span) => span.parentSpanContext?.spanId === turn.spanContext().spanId);
    const byName = (name: string) => children.filter((span) => span.name === name);
    expect(byName('agent.approval').map((span) => span.attributes)).toEqual([
      expect.objectContaining({ 'switchyard.approval_kind': 'commandExecution', 'switchyard.decision': 'accept' }),
    ]);
    expect(byName('agent.command').map((span) => span.attributes['process.exit.code'])).toEqual([0]);
    const modelCalls = children.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    for (const call of modelCalls) {
      expect(call.attributes).toMatchObject({
        'gen_ai.request.model': 'power-ai',
        'gen_ai.response.model': 'scripted-model',
        'switchyard.outcome': 'completed',
      });
      // Each call's hold, exchange and settlement hang below it; the HTTP request the app-server sent is linked.
      const steps = spans.filter((span) => span.parentSpanContext?.spanId === call.spanContext().spanId).map((span) => span.name);
      expect(steps.sort()).toEqual(['switchyard.hold', 'switchyard.settle', 'switchyard.upstream']);
      expect(call.links).toHaveLength(1);
    }
    const text = JSON.stringify(spans.map((span) => ({ attributes: span.attributes, events: span.events, name: span.name })));
    for (const secret of [PROMPT, 'traced-marker-7', harness.customer.token]) expect(text).not.toContain(secret);

    const calls = await harness.context.storage.db
      .selectFrom('billing_calls')
      .select(['thread_id', 'turn_id', 'surface'])
      .where('customer_id', '=', harness.customer.id)
      .execute();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.every((call) => call.surface === 'projects' && call.thread_id !== null)).toBe(true);
    expect(calls.some((call) => call.turn_id === turnId)).toBe(true);
  }, 60_000);
});
