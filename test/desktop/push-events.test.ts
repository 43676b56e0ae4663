/**
 * Push messages live over SSE to connected desktops, with the project events' resume rules: a connected desktop
 * gets each message meant for it as it is posted (broadcasts and its own, never another customer's), a
 * reconnect with Last-Event-ID (or ?after_id=) gets exactly the messages stored after it (dismissed and expired
 * ones left out), and the messages are still listed as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';
import { SseClient } from '../agent-events/sse-client.js';

describe('assistant-desktop push messages over SSE', () => {
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
  const connect = async (who: SignedUp, options: { query?: string; lastEventId?: string } = {}) => {
    const client = await SseClient.connect(`${base}/api/v1/assistant-desktop/push/events${options.query ?? ''}`, {
      ...bearer(who.systemToken),
      ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }),
    });
    clients.push(client);
    await client.waitFor((c) => c.comments.includes('connected'));
    return client;
  };
  const keys = (client: SseClient) => client.events.map((event) => JSON.parse(event.data).message_key as string);

  it('needs a customer; a cursor that is not a message id is 422', async () => {
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/assistant-desktop/push/events' })).statusCode).toBe(401);
    const bad = await context.app.inject({
      method: 'GET',
      url: '/api/v1/assistant-desktop/push/events',
      headers: { ...bearer(alice.systemToken), 'last-event-id': 'nope' },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['header', 'last-event-id']);
    const negative = await context.app.inject({
      method: 'GET',
      url: '/api/v1/assistant-desktop/push/events?after_id=-1',
      headers: bearer(alice.systemToken),
    });
    expect(negative.statusCode).toBe(422);
  });

  it('delivers live what is meant for the desktop, resumes after Last-Event-ID without gaps or repeats, and still lists', async () => {
    const live = await connect(alice);
    const broadcast = await push({ message_key: 'sse-all-1', title: 'Maintenance', body: 'Tonight' });
    await push({ message_key: 'sse-bob-1', customer_id: bob.customerId, title: 'Bob only', body: 'Not for Alice' });
    const mine = await push({
      message_key: 'sse-alice-1',
      customer_id: alice.customerId,
      title: 'Alice',
      body: 'Yours',
      level: 'critical',
    });
    await live.waitFor((c) => c.events.length >= 2);
    expect(keys(live)).toEqual(['sse-all-1', 'sse-alice-1']);
    expect(live.events.map((event) => event.event)).toEqual(['push', 'push']);
    expect(live.events.map((event) => Number(event.id))).toEqual([broadcast.id, mine.id]);
    expect(JSON.parse(live.events[1]!.data)).toMatchObject({
      id: mine.id,
      message_key: 'sse-alice-1',
      title: 'Alice',
      body: 'Yours',
      level: 'critical',
      broadcast: false,
    });
    const cursor = live.lastEventId!;
    live.close();

    // While the desktop is away: two more for Alice, one dismissed before she is back, one that already expired.
    await push({ message_key: 'sse-all-2', title: 'Release', body: '1.6' });
    await push({ message_key: 'sse-gone', customer_id: alice.customerId, title: 'Gone', body: 'Dismissed' });
    await push({ message_key: 'sse-expired', title: 'Old', body: 'Expired', expires_at: new Date(Date.now() - 1_000).toISOString() });
    await push({ message_key: 'sse-alice-2', customer_id: alice.customerId, title: 'Again', body: 'Second' });
    const dismissed = await context.app.inject({
      method: 'POST',
      url: '/api/v1/assistant-desktop/push/sse-gone/dismiss',
      headers: bearer(alice.systemToken),
    });
    expect(dismissed.statusCode).toBe(200);

    // EventSource reconnects keep their URL (?after_id= of the first connect) and send Last-Event-ID: the header wins.
    const resumed = await connect(alice, { query: '?after_id=0', lastEventId: cursor });
    await resumed.waitFor((c) => c.events.length >= 2);
    await push({ message_key: 'sse-all-3', title: 'Live again', body: 'After the resume' });
    await resumed.waitFor((c) => c.events.length >= 3);
    expect(keys(resumed)).toEqual(['sse-all-2', 'sse-alice-2', 'sse-all-3']);

    // From a cursor in a query only (a first connect that wants history): everything live after it.
    const history = await connect(bob, { query: `?after_id=${broadcast.id}` });
    await history.waitFor((c) => c.events.length >= 3);
    expect(keys(history)).toEqual(['sse-bob-1', 'sse-all-2', 'sse-all-3']);

    const listed = await context.app.inject({ method: 'GET', url: '/api/v1/assistant-desktop/push', headers: bearer(alice.systemToken) });
    expect(listed.json().data.map((message: { message_key: string }) => message.message_key)).toEqual([
      'sse-all-3',
      'sse-alice-2',
      'sse-all-2',
      'sse-alice-1',
      'sse-all-1',
    ]);
  });

  it('a message another node stored reaches the open streams (the shared newest-id check)', async () => {
    const live = await connect(bob);
    // Written straight to the shared table, as another node's post would be: this node's post signal never fires.
    await context.storage.db
      .insertInto('desktop_push_messages')
      .values({
        message_key: 'sse-other-node',
        customer_id: bob.customerId,
        title: 'Elsewhere',
        body: 'Other node',
        level: 'info',
        created_at: Date.now(),
        expires_at: null,
      })
      .execute();
    await live.waitFor((c) => c.events.length >= 1);
    expect(keys(live)).toEqual(['sse-other-node']);
  });
});
