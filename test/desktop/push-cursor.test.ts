/**
 * Push streams with a cursor the server never handed out: a Last-Event-ID (or ?after_id=) beyond the newest
 * message (a client's bug, a database restored from a backup, someone probing) must not leave the desktop deaf
 * until the ids catch up; the stream starts from the newest message, as a new connection does, and still never
 * shows another customer's message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';
import { SseClient } from '../agent-events/sse-client.js';

describe('push stream cursors', () => {
  let context: TestContext;
  let base: string;
  let alice: SignedUp;
  let bob: SignedUp;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    context = await createTestContext({ config: { desktop: { shoutbox: { heartbeatMs: 200, pollMs: 200 } } } as never });
    base = await context.listen();
    alice = await signUp(context, 'alice');
    bob = await signUp(context, 'bob');
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await context.close();
  });

  const push = async (payload: Record<string, unknown>): Promise<{ id: number; message_key: string }> => {
    const response = await context.app.inject({ method: 'POST', url: '/api/admin/push', headers: operatorHeaders, payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const connect = async (who: SignedUp, headers: Record<string, string>, query = '') => {
    const client = await SseClient.connect(`${base}/api/v1/assistant-desktop/push/events${query}`, {
      ...bearer(who.systemToken),
      ...headers,
    });
    clients.push(client);
    await client.waitFor((c) => c.comments.includes('connected'));
    return client;
  };
  const keys = (client: SseClient) => client.events.map((event) => JSON.parse(event.data).message_key as string);

  it('a cursor beyond the newest message starts from the newest: the next message meant for the desktop arrives', async () => {
    await push({ message_key: 'cursor-old', customer_id: alice.customerId, title: 'Old', body: 'Before' });
    const future = await connect(alice, { 'last-event-id': '999999999999999' });
    const query = await connect(alice, {}, '?after_id=999999999');
    await push({ message_key: 'cursor-bob', customer_id: bob.customerId, title: 'Bob', body: 'Not for Alice' });
    const next = await push({ message_key: 'cursor-new', customer_id: alice.customerId, title: 'New', body: 'After' });
    for (const client of [future, query]) {
      await client.waitFor((c) => c.events.length >= 1);
      expect(keys(client)).toEqual(['cursor-new']);
      expect(Number(client.events[0]!.id)).toBe(next.id);
    }
  });
});
