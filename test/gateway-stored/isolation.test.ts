import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATIC_TOKEN } from '../helpers/context.js';
import { MODEL, fundedCustomer, storedCounts, storedSetup, type FundedCustomer, type StoredSetup } from './support.js';

describe('stored objects belong to the bearer that created them', () => {
  let setup: StoredSetup;
  let owner: FundedCustomer;
  let stranger: FundedCustomer;
  let completionId: string;
  let responseId: string;
  let pendingId: string;
  beforeAll(async () => {
    setup = await storedSetup();
    owner = await fundedCustomer(setup);
    stranger = await fundedCustomer(setup);
    const completion = await owner.client.chat.completions.create({
      model: MODEL,
      store: true,
      metadata: { who: 'owner' },
      messages: [{ role: 'user', content: 'mine' }],
    });
    completionId = completion.id;
    responseId = (await owner.client.responses.create({ model: MODEL, input: 'mine too' })).id;
    setup.upstream.enqueue({ kind: 'hang' });
    pendingId = (await owner.client.responses.create({ model: MODEL, input: 'pending', background: true })).id;
    await setup.upstream.waitForRequests(3);
  });
  afterAll(async () => setup.close());

  const routes = (): { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: object }[] => [
    { method: 'GET', url: `/v1/chat/completions/${completionId}` },
    { method: 'GET', url: `/v1/chat/completions/${completionId}/messages` },
    { method: 'PATCH', url: `/v1/chat/completions/${completionId}`, payload: { metadata: { who: 'stranger' } } },
    { method: 'POST', url: `/v1/chat/completions/${completionId}`, payload: { metadata: { who: 'stranger' } } },
    { method: 'DELETE', url: `/v1/chat/completions/${completionId}` },
    { method: 'GET', url: `/v1/responses/${responseId}` },
    { method: 'GET', url: `/v1/responses/${responseId}?stream=true` },
    { method: 'GET', url: `/v1/responses/${responseId}/input_items` },
    { method: 'POST', url: `/v1/responses/${responseId}/compact`, payload: {} },
    { method: 'POST', url: '/v1/responses/compact', payload: { model: MODEL, previous_response_id: responseId } },
    { method: 'POST', url: `/v1/responses/${pendingId}/cancel` },
    { method: 'DELETE', url: `/v1/responses/${responseId}` },
    { method: 'DELETE', url: `/v1/responses/${pendingId}` },
  ];

  it('answers 404 in OpenAI shape on every route for another customer’s ids, and for the operator token', async () => {
    const seen = setup.upstream.requests.length;
    const before = await storedCounts(setup);
    for (const token of [stranger.key, STATIC_TOKEN]) {
      for (const route of routes()) {
        const response = await setup.context.app.inject({ ...route, headers: { authorization: `Bearer ${token}` } });
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(404);
        expect(response.json().error, `${route.method} ${route.url}`).toMatchObject({ type: 'invalid_request_error', code: 'not_found' });
      }
    }
    expect(setup.upstream.requests.length).toBe(seen);
    expect(await storedCounts(setup)).toEqual(before);
    expect((await owner.client.chat.completions.retrieve(completionId)).metadata).toEqual({ who: 'owner' });
    expect((await owner.client.responses.retrieve(pendingId)).status).toBe('in_progress');
  });

  it('lists only the bearer’s own completions', async () => {
    expect((await stranger.client.chat.completions.list()).data).toEqual([]);
    expect((await owner.client.chat.completions.list()).data.map((completion) => completion.id)).toEqual([completionId]);
    const cursor = await setup.context.app.inject({
      method: 'GET',
      url: `/v1/chat/completions?after=${completionId}`,
      headers: { authorization: `Bearer ${stranger.key}` },
    });
    expect(cursor.statusCode).toBe(400);
  });

  it('gives the operator token a scope of its own', async () => {
    const operator = setup.context.app;
    const created = await operator.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${STATIC_TOKEN}` },
      payload: { model: MODEL, store: true, messages: [{ role: 'user', content: 'operator' }] },
    });
    expect(created.statusCode, created.body).toBe(200);
    const list = await operator.inject({
      method: 'GET',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${STATIC_TOKEN}` },
    });
    expect(list.json().data.map((completion: { id: string }) => completion.id)).toEqual([created.json().id]);
    await expect(owner.client.chat.completions.retrieve(created.json().id)).rejects.toMatchObject({ status: 404 });
  });

  it('the owner can still cancel what the stranger could not', async () => {
    expect((await owner.client.responses.cancel(pendingId)).status).toBe('cancelled');
  });
});
