/** Shared setup of the payment tests: a service pointed at the processor doubles, customers, invariant checks. */
import { expect } from 'vitest';
import { bearer, createTestContext, operatorHeaders, type TestContext, type TestContextOptions } from '../helpers/context.js';
import type { CardProcessor } from '../fakes/card-processor.js';

export { newCustomer, credit, walletOf } from '../billing/helpers.js';

export function cardConfig(processor: CardProcessor) {
  return { enabled: true, apiBaseUrl: processor.url, secretKey: processor.secretKey, webhookSecret: processor.webhookSecret };
}

export async function paymentsContext(
  options: Omit<TestContextOptions, 'config'> & { config?: Record<string, unknown> } = {},
): Promise<TestContext> {
  return createTestContext({ ...options, config: options.config as TestContextOptions['config'] });
}

/** The operator's invariant route: balances equal entries, transfers balanced, holds consistent. */
export async function expectInvariants(context: TestContext): Promise<void> {
  const response = await context.app.inject({ method: 'GET', url: '/api/admin/billing/invariants', headers: operatorHeaders });
  expect(response.statusCode).toBe(200);
  expect(response.json(), response.body).toMatchObject({ ok: true, mismatchedAccounts: [], unbalancedTransfers: [], badHolds: [] });
}

export function asCustomer(token: string) {
  return bearer(token);
}

/** Posts a raw webhook body with a signature header (or none). */
export function deliver(
  context: TestContext,
  rawBody: string,
  signature: string | undefined,
  contentType = 'application/json; charset=utf-8',
) {
  return context.app.inject({
    method: 'POST',
    url: '/api/v1/card/webhook',
    headers: { 'content-type': contentType, ...(signature === undefined ? {} : { 'stripe-signature': signature }) },
    payload: rawBody,
  });
}

export async function entryCount(context: TestContext): Promise<number> {
  return (await context.storage.db.selectFrom('ledger_entries').select('id').execute()).length;
}
