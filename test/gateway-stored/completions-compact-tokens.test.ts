import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL, OTHER_MODEL, fundedCustomer, storedSetup, walletBalance, type FundedCustomer, type StoredSetup } from './support.js';

describe('legacy completions, compaction and input tokens', () => {
  let setup: StoredSetup;
  let customer: FundedCustomer;
  beforeAll(async () => {
    setup = await storedSetup();
    customer = await fundedCustomer(setup);
  });
  afterAll(async () => setup.close());

  function lastUpstreamBody(): any {
    return setup.upstream.requests.at(-1)!.body;
  }

  it('answers a legacy completion in the text_completion shape and bills it', async () => {
    const before = await walletBalance(setup, customer.customerId);
    setup.upstream.enqueue({ kind: 'text', text: 'Paris.', usage: { inputTokens: 12, outputTokens: 3 } });
    const completion = await customer.client.completions.create({ model: MODEL, prompt: 'The capital of France is', max_tokens: 20 });
    expect(completion).toMatchObject({
      object: 'text_completion',
      model: MODEL,
      choices: [{ text: 'Paris.', index: 0, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    });
    expect(completion.id).toMatch(/^cmpl_/);
    expect(JSON.stringify(lastUpstreamBody())).toContain('The capital of France is');
    expect(await walletBalance(setup, customer.customerId)).toBeLessThan(before);
  });

  it('answers a batch of prompts with one choice per prompt, echo included', async () => {
    // The prompts run concurrently, so the reply is chosen by the prompt each upstream request carries.
    setup.upstream.setDefault((request) => ({ kind: 'text', text: JSON.stringify(request.body).includes('first') ? ' one' : ' two' }));
    try {
      const completion = await customer.client.completions.create({ model: MODEL, prompt: ['first', 'second'], echo: true });
      expect(completion.choices.map((choice) => [choice.index, choice.text])).toEqual([
        [0, 'first one'],
        [1, 'second two'],
      ]);
    } finally {
      setup.upstream.setDefault(() => ({ kind: 'text', text: 'Hello from the scripted model.' }));
    }
  });

  it('streams legacy chunks ending with [DONE], usage on request', async () => {
    setup.upstream.enqueue({ kind: 'text', text: 'streamed legacy text', chunks: 3, usage: { inputTokens: 5, outputTokens: 4 } });
    const stream = await customer.client.completions.create({
      model: MODEL,
      prompt: 'go',
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.object === 'text_completion')).toBe(true);
    expect(chunks.map((chunk) => chunk.choices[0]?.text ?? '').join('')).toBe('streamed legacy text');
    expect(chunks.filter((chunk) => chunk.choices.length > 0).length).toBeGreaterThan(1);
    const withFinish = chunks.filter((chunk) => chunk.choices[0]?.finish_reason);
    expect(withFinish.map((chunk) => chunk.choices[0]!.finish_reason)).toEqual(['stop']);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 } });

    const raw = await fetch(`${setup.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, prompt: 'go', stream: true }),
    });
    const text = await raw.text();
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(text).not.toContain('"usage"');
  });

  it('writes a legacy error chunk when the upstream fails after the stream started', async () => {
    setup.upstream.enqueue({ kind: 'error_after_200', text: 'partial', message: 'upstream broke' });
    const raw = await fetch(`${setup.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, prompt: 'go', stream: true }),
    });
    const frames = (await raw.text())
      .split('\n\n')
      .filter(Boolean)
      .map((frame) => frame.replace(/^data: /, ''));
    expect(frames.at(-1)).toBe('[DONE]');
    expect(JSON.parse(frames.at(-2)!)).toMatchObject({ error: { type: 'api_error' } });
    expect(frames.some((frame) => frame.includes('"finish_reason":"stop"'))).toBe(false);
  });

  it('refuses bad legacy bodies with a 400 in OpenAI shape and calls no upstream', async () => {
    const seen = setup.upstream.requests.length;
    for (const body of [
      { prompt: 'no model' },
      { model: MODEL },
      { model: MODEL, prompt: [1, 2, 3] },
      { model: MODEL, prompt: 'x', n: 2 },
    ]) {
      const response = await setup.context.app.inject({
        method: 'POST',
        url: '/v1/completions',
        headers: { authorization: `Bearer ${customer.key}` },
        payload: body,
      });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error).toMatchObject({ type: 'invalid_request_error', code: 'validation_failed' });
    }
    expect(setup.upstream.requests.length).toBe(seen);
  });

  it('counts input tokens locally in both forms, without an upstream call or a charge', async () => {
    const seen = setup.upstream.requests.length;
    const before = await walletBalance(setup, customer.customerId);
    const short = await customer.client.responses.inputTokens.count({ model: MODEL, input: 'hello' });
    expect(short).toMatchObject({ object: 'response.input_tokens' });
    expect(short.input_tokens).toBeGreaterThan(0);
    const long = await setup.context.app.inject({
      method: 'POST',
      url: '/v1/responses/count_tokens',
      headers: { authorization: `Bearer ${customer.key}` },
      payload: { model: MODEL, instructions: 'be brief', input: 'hello '.repeat(200) },
    });
    expect(long.statusCode).toBe(200);
    expect(long.json().input_tokens).toBeGreaterThan(short.input_tokens + 150);
    expect(setup.upstream.requests.length).toBe(seen);
    expect(await walletBalance(setup, customer.customerId)).toBe(before);
    const missing = await setup.context.app.inject({
      method: 'POST',
      url: '/v1/responses/input_tokens',
      headers: { authorization: `Bearer ${customer.key}` },
      payload: { input: 'x' },
    });
    expect(missing.statusCode).toBe(400);
  });

  it("binds input-token counts to the key's allowed_models on every count route", async () => {
    const created = await setup.context.app.inject({
      method: 'POST',
      url: '/api/v1/me/api-keys',
      headers: { authorization: `Bearer ${customer.key}` },
      payload: { name: 'one model', allowed_models: [OTHER_MODEL] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const restricted = created.json().key as string;
    for (const url of ['/v1/responses/count_tokens', '/v1/responses/input_tokens', '/v1/messages/count_tokens']) {
      const body = url.startsWith('/v1/messages')
        ? { model: MODEL, messages: [{ role: 'user', content: 'hello' }] }
        : { model: MODEL, input: 'hello' };
      const refused = await setup.context.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${restricted}` },
        payload: body,
      });
      expect(refused.statusCode, `${url} ${refused.body}`).toBe(403);
      expect(refused.body).toContain(`may not use model ${MODEL}`);
      // The alias of a forbidden model is as forbidden as the model itself.
      const viaAlias = await setup.context.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${restricted}` },
        payload: { ...body, model: 'power-ai' },
      });
      expect(viaAlias.statusCode, `${url} ${viaAlias.body}`).toBe(403);
      const allowed = await setup.context.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${restricted}` },
        payload: { ...body, model: OTHER_MODEL },
      });
      expect(allowed.statusCode, `${url} ${allowed.body}`).toBe(200);
      expect(allowed.json().input_tokens).toBeGreaterThan(0);
    }
  });

  it('compacts a stored response through a billed upstream call (spec form)', async () => {
    const created = await customer.client.responses.create({ model: MODEL, input: 'Remember the code word: heron.' });
    const before = await walletBalance(setup, customer.customerId);
    const seen = setup.upstream.requests.length;
    setup.upstream.enqueue({ kind: 'text', text: 'The user set the code word heron.', usage: { inputTokens: 40, outputTokens: 9 } });
    const response = await setup.context.app.inject({
      method: 'POST',
      url: `/v1/responses/${created.id}/compact`,
      headers: { authorization: `Bearer ${customer.key}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    const compacted = response.json();
    expect(compacted).toMatchObject({ object: 'response.compaction', usage: { input_tokens: 40, output_tokens: 9, total_tokens: 49 } });
    expect(compacted.output.slice(0, -1)).toMatchObject([{ type: 'message', role: 'user' }]);
    const compaction = compacted.output.at(-1);
    expect(compaction).toMatchObject({ type: 'compaction' });
    expect(compaction.encrypted_content).not.toContain('heron');
    expect(setup.upstream.requests.length).toBe(seen + 1);
    const sent = JSON.stringify(lastUpstreamBody());
    expect(sent).toContain('Remember the code word: heron.');
    expect(sent).toContain('Hello from the scripted model.');
    expect(await walletBalance(setup, customer.customerId)).toBeLessThan(before);
    const billed = await setup.context.storage.db
      .selectFrom('billing_calls')
      .select(['status', 'outcome', 'input_tokens', 'output_tokens'])
      .where('request_id', '=', String(response.headers['x-request-id']))
      .execute();
    expect(billed).toEqual([{ status: 'settled', outcome: 'completed', input_tokens: 40, output_tokens: 9 }]);

    // The compaction item fed back as input reaches the model as the summary it carries.
    await customer.client.responses.create({ model: MODEL, input: [compaction, { role: 'user', content: 'what was the word?' }] as never });
    expect(JSON.stringify(lastUpstreamBody())).toContain('The user set the code word heron.');
    expect(JSON.stringify(lastUpstreamBody())).not.toContain(compaction.encrypted_content);

    setup.upstream.enqueue({ kind: 'text', text: 'Summary two.' });
    const again = await customer.client.responses.compact({
      model: MODEL,
      input: [compaction, { role: 'user', content: 'and now?' }] as never,
    });
    expect(again.object).toBe('response.compaction');
    expect(JSON.stringify(lastUpstreamBody())).toContain('The user set the code word heron.');
  });

  it('compacts in the OpenAI form from a previous response', async () => {
    const created = await customer.client.responses.create({ model: MODEL, input: 'Plan: paint the fence.' });
    setup.upstream.enqueue({ kind: 'text', text: 'Painting the fence.' });
    const compacted = await customer.client.responses.compact({ model: MODEL, previous_response_id: created.id, input: 'What next?' });
    expect(compacted.output.map((item) => item.type)).toEqual(['message', 'message', 'compaction']);
    expect(JSON.stringify(lastUpstreamBody())).toContain('Plan: paint the fence.');
    await expect(customer.client.responses.compact({ model: MODEL })).rejects.toMatchObject({ status: 400 });
  });
});
