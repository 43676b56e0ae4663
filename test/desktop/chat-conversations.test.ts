import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestContext } from '../helpers/context.js';
import { billingContext, MODEL, newCustomer, type TestCustomer } from '../billing/helpers.js';

describe('desktop chat conversations', () => {
  let context: TestContext;
  let alice: TestCustomer;
  let bob: TestCustomer;

  beforeAll(async () => {
    context = await billingContext();
    alice = await newCustomer(context);
    bob = await newCustomer(context);
  });
  afterAll(async () => context.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, who: TestCustomer, payload?: unknown) =>
    context.app.inject({ method, url, headers: bearer(who.systemToken), payload: payload as never });
  const storeMessage = async (conversationId: number, who: TestCustomer, role: string, content: string) =>
    context.storage.db
      .insertInto('desktop_chat_messages')
      .values({
        conversation_id: conversationId,
        customer_id: who.customerId,
        role,
        content,
        model: role === 'assistant' ? MODEL : null,
        request_id: null,
        input_tokens: null,
        output_tokens: null,
        created_at: Date.now(),
      })
      .execute();

  it('creates, lists and reads conversations; defaults and validation', async () => {
    const plain = await call('POST', '/api/v1/desktop-chat/conversations', alice, {});
    expect(plain.statusCode, plain.body).toBe(201);
    expect(plain.json()).toMatchObject({ title: 'New chat', model: 'power-ai', system_prompt: null });
    const named = await call('POST', '/api/v1/desktop-chat/conversations', alice, {
      title: '  Plans  ',
      model: MODEL,
      system_prompt: 'Be brief.',
    });
    expect(named.statusCode, named.body).toBe(201);
    expect(named.json()).toMatchObject({ title: 'Plans', model: MODEL, system_prompt: 'Be brief.' });

    expect((await call('POST', '/api/v1/desktop-chat/conversations', alice, { model: 'no-such-model' })).statusCode).toBe(422);
    expect((await call('POST', '/api/v1/desktop-chat/conversations', alice, { title: 'x', extra: 1 })).statusCode).toBe(422);
    expect((await call('POST', '/api/v1/desktop-chat/conversations', alice, { title: 'x'.repeat(201) })).statusCode).toBe(422);

    const listed = (await call('GET', '/api/v1/desktop-chat/conversations', alice)).json().data;
    expect(listed.map((row: { id: number }) => row.id)).toEqual([named.json().id, plain.json().id]);
    expect((await call('GET', '/api/v1/desktop-chat/conversations', bob)).json().data).toEqual([]);

    const boot = await call('GET', '/api/v1/desktop-chat/bootstrap', alice);
    expect(boot.statusCode, boot.body).toBe(200);
    expect(boot.json().conversations).toHaveLength(2);
    expect(boot.json().models.map((model: { id: string }) => model.id)).toContain('power-ai');
    expect(boot.json().default_model).toBe('power-ai');

    await storeMessage(named.json().id, alice, 'user', 'What next?');
    await storeMessage(named.json().id, alice, 'assistant', 'Ship it.');
    const messages = await call('GET', `/api/v1/desktop-chat/conversations/${named.json().id}/messages`, alice);
    expect(messages.statusCode, messages.body).toBe(200);
    expect(messages.json().conversation.id).toBe(named.json().id);
    expect(messages.json().data.map((message: { role: string; content: string }) => [message.role, message.content])).toEqual([
      ['user', 'What next?'],
      ['assistant', 'Ship it.'],
    ]);
    const after = (
      await call('GET', `/api/v1/desktop-chat/conversations/${named.json().id}/messages?after_id=${messages.json().data[0].id}`, alice)
    ).json().data;
    expect(after.map((message: { content: string }) => message.content)).toEqual(['Ship it.']);
  });

  it("BOLA: another customer's conversation → 404 on read and delete, and it survives", async () => {
    const bobs = (await call('POST', '/api/v1/desktop-chat/conversations', bob, { title: 'secret' })).json();
    await storeMessage(bobs.id, bob, 'user', 'private words');
    const read = await call('GET', `/api/v1/desktop-chat/conversations/${bobs.id}/messages`, alice);
    const unknown = await call('GET', '/api/v1/desktop-chat/conversations/987654321/messages', alice);
    expect(read.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(read.json().detail).toBe(unknown.json().detail);
    expect(read.body).not.toContain('private words');
    expect((await call('DELETE', `/api/v1/desktop-chat/conversations/${bobs.id}`, alice)).statusCode).toBe(404);
    expect((await call('GET', `/api/v1/desktop-chat/conversations/${bobs.id}/messages`, bob)).json().data).toHaveLength(1);
    expect((await call('GET', '/api/v1/desktop-chat/conversations/abc/messages', alice)).statusCode).toBe(422);
  });

  it('delete removes the conversation and its messages; a second delete is 404', async () => {
    const doomed = (await call('POST', '/api/v1/desktop-chat/conversations', alice, { title: 'doomed' })).json();
    await storeMessage(doomed.id, alice, 'user', 'bye');
    const deleted = await call('DELETE', `/api/v1/desktop-chat/conversations/${doomed.id}`, alice);
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await call('DELETE', `/api/v1/desktop-chat/conversations/${doomed.id}`, alice)).statusCode).toBe(404);
    expect((await call('GET', `/api/v1/desktop-chat/conversations/${doomed.id}/messages`, alice)).statusCode).toBe(404);
    const left = await context.storage.db
      .selectFrom('desktop_chat_messages')
      .select('id')
      .where('conversation_id', '=', doomed.id)
      .execute();
    expect(left).toEqual([]);
  });
});
