/** Shared setup of the wallet tests: a service with a scripted provider, funded customers, invariant checks. */
import { afterEach, beforeEach, expect } from 'vitest';
import type { KeyPolicy, Principal } from '../../src/accounts/principal.js';
import type { MeteredCall, MeterRequest } from '../../src/billing/meter.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { bearer, createTestContext, operatorHeaders, type TestContext, type TestContextOptions } from '../helpers/context.js';

export const MODEL = 'test-model';

export function billingConfig(upstreamUrl = 'http://127.0.0.1:9', extra: Record<string, unknown> = {}) {
  return {
    providers: [{ id: 'scripted', kind: 'openai', baseUrl: `${upstreamUrl}/v1` }],
    models: [
      { id: MODEL, provider: 'scripted', upstreamModel: 'scripted-model', rateCard: 'standard' },
      { id: 'other-model', provider: 'scripted', upstreamModel: 'scripted-other', rateCard: 'standard' },
    ],
    aliases: { 'power-ai': MODEL },
    ...extra,
  };
}

/** `config` is raw config-file JSON (schema defaults apply), merged over the scripted-provider catalogue. */
export async function billingContext(
  options: Omit<TestContextOptions, 'config'> & { upstreamUrl?: string; config?: Record<string, unknown> } = {},
): Promise<TestContext> {
  const { upstreamUrl, config, ...rest } = options;
  return createTestContext({ ...rest, config: { ...billingConfig(upstreamUrl), ...config } as unknown as TestContextOptions['config'] });
}

/** A new billing context for each test of the calling `describe`, its ledger checked and closed after the test. */
export function withFreshBillingContext(use: (context: TestContext) => void): void {
  let context: TestContext;
  beforeEach(async () => {
    context = await billingContext();
    use(context);
  });
  afterEach(async () => {
    await expectLedgerConsistent(context);
    await context.close();
  });
}

/** What `withListeningGateway` gives each test: its context, the scripted upstream and the service's URL. */
export interface ListeningGateway {
  context: TestContext;
  upstream: ModelUpstream;
  url: string;
}

/**
 * A scripted upstream and a billing context listening on a port, new for each test of the calling `describe`; the
 * ledger is checked and both are closed after the test. Read the fields inside the tests (they change per test).
 */
export function withListeningGateway(): ListeningGateway {
  const current = {} as ListeningGateway;
  beforeEach(async () => {
    current.upstream = await startModelUpstream();
    current.context = await billingContext({ upstreamUrl: current.upstream.url });
    current.url = await current.context.listen();
  });
  afterEach(async () => {
    await expectLedgerConsistent(current.context);
    await current.context.close();
    await current.upstream.close();
  });
  return current;
}

export interface TestCustomer {
  customerId: number;
  systemToken: string;
  systemKeyId: number;
}

let sequence = 0;
export async function newCustomer(context: TestContext, creditMicros = 0): Promise<TestCustomer> {
  sequence += 1;
  const created = await context.services.customers.create({ email: `buyer${sequence}-${Date.now()}@example.com` });
  if (creditMicros !== 0) await credit(context, created.customer.id, creditMicros);
  return { customerId: created.customer.id, systemToken: created.systemToken.key, systemKeyId: created.systemToken.id };
}

export async function credit(context: TestContext, customerId: number, amountMicros: number): Promise<void> {
  const response = await context.app.inject({
    method: 'POST',
    url: `/api/admin/customers/${customerId}/wallet/adjust`,
    headers: { ...operatorHeaders, 'idempotency-key': `fund-${customerId}-${Math.random()}` },
    payload: { amount_micros: amountMicros, reason: 'test funding' },
  });
  expect(response.statusCode, response.body).toBe(200);
}

export async function userKey(context: TestContext, customerId: number, policy: KeyPolicy = {}, expiresAt: number | null = null) {
  const issued = await context.services.keys.issue(context.storage.db, {
    customerId,
    kind: 'user',
    role: 'customer',
    name: 'test key',
    policy,
    expiresAt,
  });
  return { key: issued.plaintext, keyId: issued.row.id };
}

export async function principalFor(context: TestContext, key: string): Promise<Principal> {
  return context.services.identity.resolve(key);
}

export function meterRequest(principal: Principal, overrides: Partial<MeterRequest> = {}): MeterRequest {
  return {
    principal,
    requestedModel: MODEL,
    modelId: MODEL,
    operation: 'chat',
    estimatedInputTokens: 1_000,
    maxOutputTokens: 1_000,
    requestId: `req_${Math.random().toString(36).slice(2)}`,
    ...overrides,
  };
}

/**
 * Begins a metered call and waits for its hold to commit: a call may start before (an early hold, once an earlier
 * hold on the wallet showed enough credit), so a test reading holds or call rows right after begin() waits here.
 */
export async function beginCommitted(context: TestContext, request: MeterRequest): Promise<MeteredCall> {
  const call = await context.services.billing.meter.begin(request);
  await call.confirmed;
  return call;
}

/** Worst case of the standard card ($4/M in, $24/M out) for the default request: 4_000 + 24_000 µUSD. */
export const STANDARD_HOLD = 28_000;

export async function expectLedgerConsistent(context: TestContext): Promise<void> {
  const check = await context.services.billing.checkLedger();
  expect(check).toEqual({ mismatchedAccounts: [], unbalancedTransfers: [], badHolds: [] });
}

export async function walletOf(context: TestContext, customerId: number) {
  return context.services.billing.walletSummary(customerId);
}

/**
 * The customer's wallet once no call of theirs is open. An answer ends before its settlement commits, and a call
 * answered by another process settles there, where this process's wallet read cannot wait for it.
 */
export async function settledWalletOf(context: TestContext, customerId: number, timeoutMs = 15_000) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    const open = await context.storage.db
      .selectFrom('billing_calls')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('status', '=', 'open')
      .executeTakeFirst();
    if (!open) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return walletOf(context, customerId);
}

export const CHAT_BODY = { model: 'power-ai', messages: [{ role: 'user', content: 'Count to three.' }], max_tokens: 50 };

export async function chat(url: string, key: string, body: Record<string, unknown> = CHAT_BODY, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(key) },
    body: JSON.stringify(body),
    signal,
  });
}

/** One probe call: the hold the gateway places for CHAT_BODY, and usage that costs exactly that hold. */
export async function probeHold(context: TestContext, upstream: ModelUpstream, url: string, key: string, customerId: number) {
  const response = await chat(url, key);
  expect(response.status, await response.clone().text()).toBe(200);
  // The answer ends before its settlement commits (possibly in another process): wait for the settlement, so the
  // wallet the caller reads next already shows the probe's cost.
  let call = await context.storage.db
    .selectFrom('billing_calls')
    .selectAll()
    .where('customer_id', '=', customerId)
    .executeTakeFirstOrThrow();
  for (const deadline = Date.now() + 10_000; call.status === 'open' && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    call = await context.storage.db.selectFrom('billing_calls').selectAll().where('id', '=', call.id).executeTakeFirstOrThrow();
  }
  expect(call.status, 'the probe call settles').not.toBe('open');
  upstream.setDefault(() => ({
    kind: 'text',
    text: 'one two three',
    usage: { inputTokens: call.estimated_input_tokens, outputTokens: call.max_output_tokens },
  }));
  return call.hold_micros;
}
