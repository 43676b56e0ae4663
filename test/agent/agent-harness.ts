/**
 * A service with the agent runtime wired to the real app-server, whose model provider is this service's own
 * /v1 (the gateway), which routes `power-ai` to the scripted upstream. Helpers wait for project events.
 */
import { createTestContext, bearer, type TestContext } from '../helpers/context.js';
import { startModelUpstream, type ModelUpstream, type RecordedRequest, type Reply } from '../fakes/model-upstream.js';
import type { ProjectEvent } from '../../src/agent/events/types.js';
import type { TestStorage } from '../helpers/databases.js';
import type { Clock } from '../../src/kernel/clock.js';

export interface AgentHarness {
  context: TestContext;
  upstream: ModelUpstream;
  customer: { id: number; token: string; headers: { authorization: string } };
  createProject(headers?: { authorization: string }): Promise<string>;
  events(projectId: string): Promise<ProjectEvent[]>;
  waitForEvent(projectId: string, predicate: (event: ProjectEvent) => boolean, timeoutMs?: number): Promise<ProjectEvent>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  agent?: Record<string, unknown>;
  /** Further config sections (rate-limit plans, say). */
  config?: Record<string, unknown>;
  upstream?: ModelUpstream;
  storage?: TestStorage;
  dataDir?: string;
  keepStorage?: boolean;
  /** The service's clock: a FakeClock moves the idle stop, restart backoff and approval expiry without sleeping. */
  clock?: Clock;
}

export function gatewayConfig(upstreamUrl: string) {
  return {
    providers: [{ id: 'scripted', kind: 'openai', baseUrl: `${upstreamUrl}/v1`, apiKey: 'sk-upstream' }],
    models: [
      {
        id: 'scripted-coder',
        provider: 'scripted',
        upstreamModel: 'scripted-model',
        capabilities: { responsesApi: true, tools: true, images: true },
      },
    ],
    aliases: { 'power-ai': 'scripted-coder' },
  };
}

export async function startAgentHarness(options: HarnessOptions = {}): Promise<AgentHarness> {
  const upstream = options.upstream ?? (await startModelUpstream());
  const context = await createTestContext({
    config: {
      ...gatewayConfig(upstream.url),
      ...options.config,
      agent: { requestTimeoutMs: 20_000, stopGraceMs: 500, restartBackoffInitialMs: 50, ...options.agent },
    } as never,
    storage: options.storage,
    clock: options.clock,
    env: options.dataDir ? { SWITCHYARD_DATA_DIR: options.dataDir } : undefined,
  });
  await context.listen();
  const created = await context.services.customers.create({ email: `agent-${Math.random().toString(36).slice(2)}@example.com` });
  const customer = { id: created.customer.id, token: created.systemToken.key, headers: bearer(created.systemToken.key) };
  // Agent turns are billed like any gateway call: the customer needs credit.
  await context.services.billing.adjust({
    customerId: customer.id,
    amountMicros: 100_000_000,
    reason: 'agent tests',
    wallet: 'token',
    idempotencyKey: `agent-${customer.id}`,
  });
  return harnessFor(context, upstream, customer, options);
}

export function harnessFor(
  context: TestContext,
  upstream: ModelUpstream,
  customer: AgentHarness['customer'],
  options: HarnessOptions = {},
): AgentHarness {
  const events = (projectId: string) => context.services.projectEvents.readAfter(projectId, 0, 10_000);
  return {
    context,
    upstream,
    customer,
    async createProject(headers = customer.headers) {
      const response = await context.app.inject({ method: 'POST', url: '/api/v1/projects', headers, payload: {} });
      if (response.statusCode !== 201) throw new Error(`project create failed: ${response.body}`);
      return response.json().id as string;
    },
    events,
    async waitForEvent(projectId, predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await events(projectId)).find(predicate);
        if (found) return found;
        if (Date.now() > deadline) {
          const types = (await events(projectId)).map((event) => event.type);
          throw new Error(`event not seen within ${timeoutMs} ms; saw ${types.join(', ')}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      if (options.keepStorage) {
        await context.app.close();
        await context.services.close().catch(() => undefined);
      } else {
        await context.close();
      }
      if (!options.upstream) await upstream.close();
    },
  };
}

export const dataOf = (event: ProjectEvent): any => JSON.parse(event.dataJson);

/** True when the request already carries a tool result, i.e. the model's second call of a tool turn. */
export function hasToolOutput(request: RecordedRequest): boolean {
  const input = request.body?.input;
  return (
    Array.isArray(input) &&
    input.some((item: { type?: string }) => item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
  );
}

/** A responder that calls a tool once and answers with text after the tool ran. */
export function toolThenText(tool: Reply, text = 'Done.'): (request: RecordedRequest) => Reply {
  return (request) => (hasToolOutput(request) ? { kind: 'text', text } : tool);
}
