/**
 * What a call went on without is kept with the call: the hosted tools and fields named in the answer's headers
 * come back beside the billed call in the wallet's transactions, and a call that dropped nothing lists none.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGatewayContext, MODELS, type GatewayTestContext } from './gateway-context.js';
import { credit, newCustomer, type TestCustomer } from '../billing/helpers.js';

let gateway: GatewayTestContext;
let customer: TestCustomer;
beforeAll(async () => {
  gateway = await createGatewayContext({ config: { billing: { enabled: true } } });
  customer = await newCustomer(gateway.context);
  await credit(gateway.context, customer.customerId, 5_000_000);
});
afterAll(async () => gateway.close());

async function respond(model: string, extra: Record<string, unknown>): Promise<Headers> {
  const response = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${customer.systemToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, input: 'hello', ...extra }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  await response.text();
  return response.headers;
}

async function transactions(): Promise<{ request_id: string; dropped_tools: string[]; dropped_fields: string[]; status: string }[]> {
  const usage = await gateway.context.app.inject({
    method: 'GET',
    url: '/api/v1/billing/token-usage',
    headers: { authorization: `Bearer ${customer.systemToken}` },
  });
  expect(usage.statusCode).toBe(200);
  return usage.json().transactions;
}

describe('the names a call dropped, in its record', () => {
  it('a chat-only destination: web_search and the fields chat lacks are listed with the billed call', async () => {
    const headers = await respond(MODELS.openai, {
      tools: [{ type: 'web_search', external_web_access: false }],
      include: ['reasoning.encrypted_content'],
    });
    expect(headers.get('x-switchyard-dropped-tools')).toBe('web_search');
    expect(headers.get('x-switchyard-dropped-fields')).toBe('include');
    const requestId = headers.get('x-request-id')!;
    await vi.waitFor(async () => {
      const call = (await transactions()).find((row) => row.request_id === requestId);
      expect(call).toMatchObject({ status: 'settled', dropped_tools: ['web_search'], dropped_fields: ['include'] });
    });
  });

  it('a Responses destination takes the body as given: nothing is listed', async () => {
    const headers = await respond(MODELS.native, { tools: [{ type: 'web_search' }] });
    expect(headers.get('x-switchyard-dropped-tools')).toBeNull();
    const requestId = headers.get('x-request-id')!;
    await vi.waitFor(async () => {
      const call = (await transactions()).find((row) => row.request_id === requestId);
      expect(call).toMatchObject({ status: 'settled', dropped_tools: [], dropped_fields: [] });
    });
  });
});
