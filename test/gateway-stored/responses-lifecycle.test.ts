import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL, fundedCustomer, storedCounts, storedSetup, walletBalance, type FundedCustomer, type StoredSetup } from './support.js';

describe('stored responses and their lifecycle through the openai client', () => {
  let setup: StoredSetup;
  let customer: FundedCustomer;
  beforeAll(async () => {
    setup = await storedSetup();
    customer = await fundedCustomer(setup);
  });
  afterAll(async () => setup.close());

  it('creates, retrieves, lists input items of and deletes a response', async () => {
    const created = await customer.client.responses.create({
      model: MODEL,
      instructions: 'be brief',
      input: [
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: 'second question' },
      ],
    });
    expect(created.status).toBe('completed');
    expect(created.output_text).toBe('Hello from the scripted model.');

    const retrieved = await customer.client.responses.retrieve(created.id);
    expect(retrieved.id).toBe(created.id);
    expect(retrieved.output_text).toBe('Hello from the scripted model.');

    const items = await customer.client.responses.inputItems.list(created.id);
    expect(items.data.map((item) => (item.type === 'message' ? item.role : item.type))).toEqual(['user', 'assistant', 'user']);
    const first = items.data[0]!;
    expect(first.type === 'message' && first.content[0]).toMatchObject({ type: 'input_text', text: 'second question' });

    const ascending = await customer.client.responses.inputItems.list(created.id, { order: 'asc', limit: 1 });
    expect(ascending.data).toHaveLength(1);
    expect(ascending.has_more).toBe(true);
    const next = await customer.client.responses.inputItems.list(created.id, { order: 'asc', limit: 5, after: ascending.data[0]!.id });
    expect(next.data.map((item) => item.type === 'message' && item.role)).toEqual(['assistant', 'user']);

    const deleted = await customer.client.responses.delete(created.id).asResponse();
    expect(await deleted.json()).toEqual({ id: created.id, object: 'response', deleted: true });
    await expect(customer.client.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(customer.client.responses.inputItems.list(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('continues a conversation from previous_response_id with the whole history sent upstream', async () => {
    const lastBody = () => setup.upstream.requests.at(-1)!.body;
    const first = await customer.client.responses.create({ model: MODEL, input: 'My name is Ada.' });
    setup.upstream.enqueue({ kind: 'text', text: 'Nice to meet you, Ada.' });
    const second = await customer.client.responses.create({ model: MODEL, input: 'I like tea.', previous_response_id: first.id });
    expect(JSON.stringify(lastBody())).toContain('My name is Ada.');
    expect(JSON.stringify(lastBody())).toContain('Hello from the scripted model.');
    expect(lastBody().previous_response_id).toBeUndefined();
    await customer.client.responses.create({ model: MODEL, input: 'What do you know about me?', previous_response_id: second.id });
    const sent = JSON.stringify(lastBody());
    for (const text of ['My name is Ada.', 'I like tea.', 'Nice to meet you, Ada.', 'What do you know about me?'])
      expect(sent).toContain(text);

    const stranger = await fundedCustomer(setup);
    const seen = setup.upstream.requests.length;
    await expect(stranger.client.responses.create({ model: MODEL, input: 'x', previous_response_id: first.id })).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      customer.client.responses.create({ model: MODEL, input: 'x', previous_response_id: 'resp_missing' }),
    ).rejects.toMatchObject({ status: 404 });
    expect(setup.upstream.requests.length).toBe(seen);
    const counted = await customer.client.responses.inputTokens.count({ model: MODEL, input: 'hi', previous_response_id: second.id });
    const alone = await customer.client.responses.inputTokens.count({ model: MODEL, input: 'hi' });
    expect(counted.input_tokens).toBeGreaterThan(alone.input_tokens);
  });

  it('does not keep a response created with store: false', async () => {
    const created = await customer.client.responses.create({ model: MODEL, input: 'not kept', store: false });
    expect(created.status).toBe('completed');
    await expect(customer.client.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('replays a stored response as an event stream, resumable after a sequence number', async () => {
    const created = await customer.client.responses.create({ model: MODEL, input: 'replay me' });
    const stream = await customer.client.responses.retrieve(created.id, { stream: true });
    const events: { type: string; sequence_number: number }[] = [];
    for await (const event of stream) events.push(event);
    expect(events[0]!.type).toBe('response.created');
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(
      events
        .filter((event) => event.type === 'response.output_text.delta')
        .map((event) => (event as unknown as { delta: string }).delta)
        .join(''),
    ).toBe('Hello from the scripted model.');
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const resumed = await customer.client.responses.retrieve(created.id, { stream: true, starting_after: 3 });
    const rest: number[] = [];
    for await (const event of resumed) rest.push(event.sequence_number);
    expect(rest).toEqual(events.slice(4).map((event) => event.sequence_number));
  });

  it('runs a background response to completion, pollable with GET', async () => {
    const queued = await customer.client.responses.create({ model: MODEL, input: 'in the background', background: true });
    expect(queued.status).toBe('queued');
    expect(queued.background).toBe(true);
    await setup.context.services.gateway.responses.background.settled(queued.id);
    const done = await customer.client.responses.retrieve(queued.id);
    expect(done.status).toBe('completed');
    expect(done.output_text).toBe('Hello from the scripted model.');
    const items = await customer.client.responses.inputItems.list(queued.id);
    expect(items.data).toHaveLength(1);
  });

  it('streams a background response still running: the replay waits for its end', async () => {
    setup.upstream.enqueue({ kind: 'text', text: 'slow background answer', chunks: 3, chunkDelayMs: 150 });
    const queued = await customer.client.responses.create({ model: MODEL, input: 'take your time', background: true });
    const stream = await customer.client.responses.retrieve(queued.id, { stream: true });
    const types: string[] = [];
    let final: { status?: string; id?: string } | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.completed') final = event.response;
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(final).toMatchObject({ id: queued.id, status: 'completed' });
  });

  it('streams a background create until the response has finished, with one model call', async () => {
    const seen = setup.upstream.requests.length;
    const stream = await customer.client.responses.create({
      model: MODEL,
      input: 'background and streamed',
      background: true,
      stream: true,
    });
    const events: { type: string; response?: { id: string; status: string } }[] = [];
    for await (const event of stream) events.push(event as never);
    expect(events[0]).toMatchObject({ type: 'response.created', response: { status: 'queued' } });
    expect(events.at(-1)).toMatchObject({ type: 'response.completed', response: { id: events[0]!.response!.id, status: 'completed' } });
    expect((await customer.client.responses.retrieve(events[0]!.response!.id)).output_text).toBe('Hello from the scripted model.');
    // The stream followed the background run; no second call ran after it (it once did, billed twice).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(setup.upstream.requests.length - seen).toBe(1);
  });

  it('cancels a pending background response: the upstream call is aborted and billed once', async () => {
    const before = await walletBalance(setup, customer.customerId);
    const seen = setup.upstream.requests.length;
    setup.upstream.enqueue({ kind: 'hang' });
    const { data: queued, response: createReply } = await customer.client.responses
      .create({ model: MODEL, input: 'this will hang', background: true })
      .withResponse();
    const requestId = createReply.headers.get('x-request-id')!;
    const [upstreamRequest] = (await setup.upstream.waitForRequests(seen + 1)).slice(seen);
    expect((await customer.client.responses.retrieve(queued.id)).status).toBe('in_progress');

    const cancelled = await customer.client.responses.cancel(queued.id);
    expect(cancelled.status).toBe('cancelled');
    await setup.context.services.gateway.responses.background.settled(queued.id);
    await expect.poll(() => upstreamRequest!.aborted).toBe(true);
    expect((await customer.client.responses.retrieve(queued.id)).status).toBe('cancelled');
    const after = await walletBalance(setup, customer.customerId);
    expect(after).toBeLessThanOrEqual(before);
    const summary = await setup.context.services.billing.walletSummary(customer.customerId);
    expect(summary.holdsMicros).toBe(0);
    const calls = await setup.context.storage.db
      .selectFrom('billing_calls')
      .select(['status', 'outcome'])
      .where('request_id', '=', requestId)
      .execute();
    expect(calls).toEqual([{ status: 'settled', outcome: 'aborted' }]);

    const again = await customer.client.responses.cancel(queued.id);
    expect(again.status).toBe('cancelled');
  });

  it('returns a finished response unchanged when asked to cancel it', async () => {
    const created = await customer.client.responses.create({ model: MODEL, input: 'already done' });
    const answer = await customer.client.responses.cancel(created.id);
    expect(answer.status).toBe('completed');
    expect(answer.output).toEqual(created.output);
    const queued = await customer.client.responses.create({ model: MODEL, input: 'quick', background: true });
    await setup.context.services.gateway.responses.background.settled(queued.id);
    expect((await customer.client.responses.cancel(queued.id)).status).toBe('completed');
  });

  it('records a pending response whose run lost its heartbeat as failed when it is read', async () => {
    setup.upstream.enqueue({ kind: 'hang' });
    const queued = await customer.client.responses.create({ model: MODEL, input: 'orphaned', background: true });
    expect((await customer.client.responses.retrieve(queued.id)).status).toMatch(/queued|in_progress/);
    // As if the node running it had stopped long ago: its last heartbeat is old.
    await setup.context.storage.db
      .updateTable('gateway_stored_responses')
      .set({ updated_at: 0 })
      .where('response_id', '=', queued.id)
      .execute();
    const read = await customer.client.responses.retrieve(queued.id);
    expect(read.status).toBe('failed');
    expect(read.error?.message).toContain('interrupted');
    await setup.context.services.gateway.responses.background.close();
  });

  it('records a background response the wallet cannot cover as failed, without calling the upstream', async () => {
    const broke = await fundedCustomer(setup, 1);
    const seen = setup.upstream.requests.length;
    const queued = await broke.client.responses.create({ model: MODEL, input: 'no credit', background: true });
    await setup.context.services.gateway.responses.background.settled(queued.id);
    const read = await broke.client.responses.retrieve(queued.id);
    expect(read.status).toBe('failed');
    expect(read.error?.code).toBe('insufficient_credit');
    expect(setup.upstream.requests.length).toBe(seen);
    expect(await walletBalance(setup, broke.customerId)).toBe(1);
  });

  it('refuses a bad background create with a 400 and stores nothing', async () => {
    const before = await storedCounts(setup);
    await expect(
      customer.client.responses.create({ model: MODEL, input: ['loose', 'text'] as never, background: true }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(customer.client.responses.create({ model: '', input: 'x', background: true })).rejects.toMatchObject({ status: 400 });
    expect(await storedCounts(setup)).toEqual(before);
  });
});
