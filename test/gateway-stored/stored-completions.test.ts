import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL, OTHER_MODEL, fundedCustomer, storedCounts, storedSetup, type FundedCustomer, type StoredSetup } from './support.js';

describe('stored chat completions through the openai client', () => {
  let setup: StoredSetup;
  let customer: FundedCustomer;
  const ids: string[] = [];
  beforeAll(async () => {
    setup = await storedSetup();
    customer = await fundedCustomer(setup);
    for (let index = 0; index < 5; index += 1) {
      const completion = await customer.client.chat.completions.create({
        model: index === 3 ? OTHER_MODEL : MODEL,
        store: true,
        metadata: { batch: index < 2 ? 'early' : 'late', index: String(index) },
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: `question ${index}` },
        ],
      });
      ids.push(completion.id);
    }
  });
  afterAll(async () => setup.close());

  it('keeps only completions created with store: true', async () => {
    const unstored = await customer.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'not kept' }] });
    await expect(customer.client.chat.completions.retrieve(unstored.id)).rejects.toMatchObject({ status: 404 });
    const streamed = await customer.client.chat.completions.create({
      model: MODEL,
      store: true,
      stream: true,
      messages: [{ role: 'user', content: 'streamed' }],
    });
    let id = '';
    for await (const chunk of streamed) id = chunk.id;
    // A streamed completion is stored once its stream has ended.
    await expect
      .poll(async () => (await customer.client.chat.completions.retrieve(id).catch(() => undefined))?.choices[0]?.message.content)
      .toBe('Hello from the scripted model.');
    await customer.client.chat.completions.delete(id);
  });

  it('lists in ascending order by default and pages with after and limit', async () => {
    const first = await customer.client.chat.completions.list({ limit: 2 });
    expect(first.data.map((completion) => completion.id)).toEqual(ids.slice(0, 2));
    expect(first.has_more).toBe(true);
    const body = await customer.client.chat.completions
      .list({ limit: 2 })
      .asResponse()
      .then((response) => response.json());
    expect(body).toMatchObject({ object: 'list', first_id: ids[0], last_id: ids[1], has_more: true });
    const second = await customer.client.chat.completions.list({ limit: 10, after: ids[1] });
    expect(second.data.map((completion) => completion.id)).toEqual(ids.slice(2));
    expect(second.has_more).toBe(false);
    const descending = await customer.client.chat.completions.list({ order: 'desc', limit: 2, after: ids[3] });
    expect(descending.data.map((completion) => completion.id)).toEqual([ids[2], ids[1]]);
    const all: string[] = [];
    for await (const completion of customer.client.chat.completions.list({ limit: 2 })) all.push(completion.id);
    expect(all).toEqual(ids);
  });

  it('filters by model and by metadata pairs', async () => {
    const byModel = await customer.client.chat.completions.list({ model: OTHER_MODEL });
    expect(byModel.data.map((completion) => completion.id)).toEqual([ids[3]]);
    const late = await customer.client.chat.completions.list({ metadata: { batch: 'late' } });
    expect(late.data.map((completion) => completion.id)).toEqual(ids.slice(2));
    const exact = await customer.client.chat.completions.list({ metadata: { batch: 'late', index: '4' } });
    expect(exact.data.map((completion) => completion.id)).toEqual([ids[4]]);
  });

  it('gets a completion with its metadata and lists its request messages', async () => {
    const completion = await customer.client.chat.completions.retrieve(ids[0]!);
    expect(completion).toMatchObject({ id: ids[0], object: 'chat.completion', model: MODEL, metadata: { batch: 'early', index: '0' } });
    expect(completion.choices[0]!.message.content).toBe('Hello from the scripted model.');
    const messages = await customer.client.chat.completions.messages.list(ids[0]!);
    expect(messages.data.map((message) => [message.role, message.content])).toEqual([
      ['system', 'be brief'],
      ['user', 'question 0'],
    ]);
    expect(messages.data[0]!.id).toBeTruthy();
    const tail = await customer.client.chat.completions.messages.list(ids[0]!, { after: messages.data[0]!.id });
    expect(tail.data.map((message) => message.content)).toEqual(['question 0']);
  });

  it('updates metadata (PATCH and the OpenAI POST form) and the filters follow', async () => {
    const updated = await customer.client.chat.completions.update(ids[1]!, { metadata: { batch: 'late', topic: 'moved' } });
    expect(updated.metadata).toEqual({ batch: 'late', topic: 'moved' });
    const patched = await setup.context.app.inject({
      method: 'PATCH',
      url: `/v1/chat/completions/${ids[1]}`,
      headers: { authorization: `Bearer ${customer.key}` },
      payload: { metadata: { batch: 'late', topic: 'patched' } },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().metadata).toEqual({ batch: 'late', topic: 'patched' });
    const moved = await customer.client.chat.completions.list({ metadata: { topic: 'patched' } });
    expect(moved.data.map((completion) => completion.id)).toEqual([ids[1]]);
  });

  it('refuses metadata beyond the limits with a 400 in OpenAI shape and changes nothing', async () => {
    const before = await customer.client.chat.completions.retrieve(ids[2]!);
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v']));
    for (const metadata of [tooMany, { ['k'.repeat(65)]: 'v' }, { long: 'v'.repeat(513) }]) {
      const response = await setup.context.app.inject({
        method: 'POST',
        url: `/v1/chat/completions/${ids[2]}`,
        headers: { authorization: `Bearer ${customer.key}` },
        payload: { metadata },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ type: 'invalid_request_error', code: 'validation_failed' });
    }
    const extra = await setup.context.app.inject({
      method: 'POST',
      url: `/v1/chat/completions/${ids[2]}`,
      headers: { authorization: `Bearer ${customer.key}` },
      payload: { metadata: {}, model: 'changed' },
    });
    expect(extra.statusCode).toBe(400);
    expect(await customer.client.chat.completions.retrieve(ids[2]!)).toEqual(before);
  });

  it('refuses bad list queries with a 400', async () => {
    for (const query of ['limit=0', 'limit=101', 'order=sideways']) {
      const response = await setup.context.app.inject({
        method: 'GET',
        url: `/v1/chat/completions?${query}`,
        headers: { authorization: `Bearer ${customer.key}` },
      });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.message).toBeTruthy();
    }
    const cursor = await setup.context.app.inject({
      method: 'GET',
      url: '/v1/chat/completions?after=chatcmpl-nope',
      headers: { authorization: `Bearer ${customer.key}` },
    });
    expect(cursor.statusCode).toBe(400);
    expect(cursor.json().error.param).toBe('after');
  });

  it('deletes a completion with its messages', async () => {
    const before = await storedCounts(setup);
    const deleted = await customer.client.chat.completions.delete(ids[4]!);
    expect(deleted).toEqual({ id: ids[4], object: 'chat.completion.deleted', deleted: true });
    await expect(customer.client.chat.completions.retrieve(ids[4]!)).rejects.toMatchObject({ status: 404 });
    await expect(customer.client.chat.completions.messages.list(ids[4]!)).rejects.toMatchObject({ status: 404 });
    await expect(customer.client.chat.completions.delete(ids[4]!)).rejects.toMatchObject({ status: 404 });
    const after = await storedCounts(setup);
    expect(after).toEqual({ ...before, completions: before.completions - 1, items: before.items - 2 });
  });
});
