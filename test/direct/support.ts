/**
 * The direct surface on the agent harness (real app-server, our gateway as its provider, scripted upstream):
 * helpers to read the caller's direct event stream and to send passthrough requests.
 */
import { startAgentHarness, type AgentHarness } from '../agent/agent-harness.js';
import { bearer } from '../helpers/context.js';
import type { ProjectEvent } from '../../src/agent/events/types.js';

export interface Caller {
  id: number;
  headers: { authorization: string };
}

export interface DirectHarness extends AgentHarness {
  directEvents(customerId: number): Promise<ProjectEvent[]>;
  waitForDirectEvent(customerId: number, predicate: (event: ProjectEvent) => boolean, timeoutMs?: number): Promise<ProjectEvent>;
  rpc(headers: { authorization: string }, method: string, params?: unknown, id?: string | number): Promise<any>;
  newCustomer(): Promise<Caller>;
  userKey(caller: Caller, surfaces: string[]): Promise<{ authorization: string }>;
}

export async function startDirectHarness(): Promise<DirectHarness> {
  const harness = await startAgentHarness();
  const { context } = harness;
  const directEvents = async (customerId: number) =>
    context.services.projectEvents.readAfter(await context.services.direct.stream(customerId), 0, 10_000);
  return Object.assign(harness, {
    directEvents,
    async waitForDirectEvent(customerId: number, predicate: (event: ProjectEvent) => boolean, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await directEvents(customerId)).find(predicate);
        if (found) return found;
        if (Date.now() > deadline) {
          const types = (await directEvents(customerId)).map((event) => event.type);
          throw new Error(`direct event not seen within ${timeoutMs} ms; saw ${types.join(', ')}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async rpc(headers: { authorization: string }, method: string, params: unknown = {}, id: string | number = 1) {
      const response = await context.app.inject({
        method: 'POST',
        url: '/api/rpc',
        headers,
        payload: { jsonrpc: '2.0', id, method, params },
      });
      if (response.statusCode !== 200) throw new Error(`rpc ${method}: HTTP ${response.statusCode} ${response.body}`);
      return response.json();
    },
    async newCustomer() {
      const created = await context.services.customers.create({ email: `direct-${Math.random().toString(36).slice(2)}@example.com` });
      return { id: created.customer.id, headers: bearer(created.systemToken.key) };
    },
    async userKey(caller: Caller, surfaces: string[]) {
      const response = await context.app.inject({
        method: 'POST',
        url: '/api/v1/me/api-keys',
        headers: caller.headers,
        payload: { name: 'direct test', allowed_surfaces: surfaces },
      });
      if (response.statusCode !== 201) throw new Error(`key create failed: ${response.body}`);
      return bearer(response.json().key as string);
    },
  });
}

export const dataOf = (event: ProjectEvent): any => JSON.parse(event.dataJson);
