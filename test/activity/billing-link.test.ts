import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { billingContext, MODEL, newCustomer } from '../billing/helpers.js';

describe('402 answers name the Money page; /api/v1/me tells the dashboard what is on', () => {
  let context: TestContext;
  let upstream: ModelUpstream;
  let url: string;
  beforeEach(async () => {
    upstream = await startModelUpstream();
    context = await billingContext({
      upstreamUrl: upstream.url,
      config: { accounts: { operatorContact: 'billing@operator.test' }, promotions: { raffle: { enabled: false } } },
    });
    url = await context.listen();
  });
  afterEach(async () => {
    await context.close();
    await upstream.close();
  });

  it('an empty wallet gets 402 with billing_url in the OpenAI and Anthropic shapes, in the message and a Link header', async () => {
    const buyer = await newCustomer(context);
    const money = `${context.config.publicBaseUrl}/dashboard.html#/money`;
    const openai = new OpenAI({ apiKey: buyer.systemToken, baseURL: `${url}/v1`, maxRetries: 0 });
    const refused = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    const openaiError = refused as InstanceType<typeof OpenAI.APIError>;
    expect(openaiError.status).toBe(402);
    expect(openaiError.error).toMatchObject({ type: 'insufficient_quota', billing_url: money });
    expect(openaiError.message).toContain(money);
    expect(openaiError.headers?.get('link')).toBe(`<${money}>; rel="payment"`);

    const anthropic = new Anthropic({ apiKey: buyer.systemToken, baseURL: url, maxRetries: 0 });
    const declined = await anthropic.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(declined).toBeInstanceOf(Anthropic.APIError);
    expect((declined as InstanceType<typeof Anthropic.APIError>).status).toBe(402);
    expect((declined as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'billing_error', billing_url: money, message: expect.stringContaining(money) },
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('features: payments off, the operator contact, the promotions as configured', async () => {
    const buyer = await newCustomer(context);
    const me = await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(buyer.systemToken) });
    expect(me.json().features).toEqual({
      card_payments: false,
      crypto_payments: false,
      bonus_code_mail: false,
      auto_top_up: false,
      unlimited_plans: false,
      promotions: {
        checkin: expect.any(Boolean),
        spin_wheel: expect.any(Boolean),
        share_credit: expect.any(Boolean),
        raffle: false,
        referral: false,
      },
      operator_contact: 'billing@operator.test',
      billing_url: `${context.config.publicBaseUrl}/dashboard.html#/money`,
    });
  });
});
