/**
 * The live shoutbox stream over a real socket (node:http + eventsource-parser): new messages as they are posted,
 * ids and Last-Event-ID resume from the stored messages, heartbeats, messages another node stored (found by the
 * shared newest-id check), concurrent posts in id order with none missing, and shutdown ending the streams.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';
import { SseClient } from '../agent-events/sse-client.js';

describe('desktop shoutbox: live events (SSE)', () => {
  let context: TestContext;
  let base: string;
  let alice: SignedUp;
  let bob: SignedUp;
  let carol: SignedUp;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    context = await createTestContext({
      config: { desktop: { shoutbox: { messagesPerMinute: 1000, heartbeatMs: 200, pollMs: 200 } } } as never,
    });
    base = await context.listen();
    alice = await signUp(context, 'alice');
    bob = await signUp(context, 'bob');
    carol = await signUp(context, 'carol');
    for (const [who, username] of [
      [alice, 'alice'],
      [bob, 'bob'],
    ] as const) {
      const response = await context.app.inject({
        method: 'POST',
        url: '/api/v1/desktop-chat/shoutbox/profile',
        headers: bearer(who.systemToken),
        payload: { username },
      });
      expect(response.statusCode, response.body).toBe(200);
    }
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await context.close();
  });

  const shout = async (who: SignedUp, text: string): Promise<number> => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/desktop-chat/shoutbox/messages',
      headers: bearer(who.systemToken),
      payload: { text },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().id as number;
  };
  const connect = async (who: SignedUp, options: { query?: string; lastEventId?: string } = {}) => {
    const client = await SseClient.connect(`${base}/api/v1/desktop-chat/shoutbox/events${options.query ?? ''}`, {
      ...bearer(who.systemToken),
      ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }),
    });
    clients.push(client);
    await client.waitFor((c) => c.comments.includes('connected'));
    return client;
  };
  const texts = (client: SseClient) => client.events.map((event) => JSON.parse(event.data).text as string);
  const ids = (client: SseClient) => client.events.map((event) => Number(event.id));

  it('needs a customer; a Last-Event-ID that is not a message id is 422', async () => {
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/desktop-chat/shoutbox/events' })).statusCode).toBe(401);
    const bad = await context.app.inject({
      method: 'GET',
      url: '/api/v1/desktop-chat/shoutbox/events',
      headers: { ...bearer(carol.systemToken), 'last-event-id': 'abc' },
    });
    expect(bad.statusCode).toBe(422);
    expect(
      (
        await context.app.inject({
          method: 'GET',
          url: '/api/v1/desktop-chat/shoutbox/events?after_id=-1',
          headers: bearer(carol.systemToken),
        })
      ).statusCode,
    ).toBe(422);
  });

  it('streams new messages to every signed-in client, with the message id as event id and heartbeats in between', async () => {
    const old = await shout(alice, 'before anyone listened');
    const watcher = await connect(carol); // no username needed to read
    const author = await connect(alice);
    expect(watcher.response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(watcher.response.headers['cache-control']).toMatch(/no-cache/);
    expect(watcher.response.headers['x-accel-buffering']).toBe('no');
    const first = await shout(alice, 'hello <b>all</b>');
    const second = await shout(bob, 'hi alice');
    for (const client of [watcher, author]) await client.waitFor((c) => c.events.length >= 2);
    // Without a cursor only messages posted after connecting come; the older one is not replayed.
    expect(ids(watcher)).toEqual([first, second]);
    expect(ids(watcher)).not.toContain(old);
    expect(watcher.events.map((event) => event.event)).toEqual(['message', 'message']);
    expect(JSON.parse(watcher.events[0]!.data)).toMatchObject({ id: first, username: 'alice', text: 'hello <b>all</b>', mine: false });
    expect(JSON.parse(author.events[0]!.data)).toMatchObject({ id: first, mine: true });
    expect(JSON.parse(author.events[1]!.data)).toMatchObject({ id: second, username: 'bob', mine: false });
    await watcher.waitFor((c) => c.comments.includes('heartbeat'));
    watcher.close();
    author.close();
  });

  it('resumes after Last-Event-ID (or ?after_id=) from the stored messages, in order, without repeats', async () => {
    const first = await connect(carol, { query: '?after_id=0' });
    const stored = (
      await context.app.inject({
        method: 'GET',
        url: '/api/v1/desktop-chat/shoutbox/messages?limit=200',
        headers: bearer(carol.systemToken),
      })
    ).json().data as { id: number }[];
    const storedIds = stored.map((message) => message.id).reverse();
    await first.waitFor((c) => c.events.length >= storedIds.length);
    expect(ids(first)).toEqual(storedIds);
    const lastSeen = first.lastEventId!;
    first.close();

    const missedA = await shout(bob, 'while you were away');
    const missedB = await shout(alice, 'and this too');
    // The header wins over the URL's after_id, as a reconnecting EventSource keeps its URL.
    const resumed = await connect(carol, { query: '?after_id=0', lastEventId: lastSeen });
    await resumed.waitFor((c) => c.events.length >= 2);
    const live = await shout(bob, 'live again');
    await resumed.waitFor((c) => c.events.length >= 3);
    expect(ids(resumed)).toEqual([missedA, missedB, live]);
    expect(texts(resumed)).toEqual(['while you were away', 'and this too', 'live again']);
    resumed.close();
  });

  it('delivers a message another node stored (no post on this node), found by the shared newest-id check', async () => {
    const client = await connect(carol);
    const row = await context.storage.db
      .insertInto('shoutbox_messages')
      .values({ customer_id: bob.customerId, text: 'from another node', created_at: Date.now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await client.waitFor((c) => c.events.length >= 1);
    expect(ids(client)).toEqual([Number(row.id)]);
    expect(texts(client)).toEqual(['from another node']);
    client.close();
  });

  it('concurrent posts of several customers reach a stream in id order, none missing', async () => {
    const client = await connect(carol);
    const posted = await Promise.all(Array.from({ length: 24 }, (_, index) => shout(index % 2 === 0 ? alice : bob, `burst ${index}`)));
    await client.waitFor((c) => c.events.length >= posted.length);
    expect(ids(client)).toEqual([...posted].sort((a, b) => a - b));
    client.close();
  });

  it('a closed client leaves the feed; shutdown ends the open streams', async () => {
    await expect.poll(() => context.services.desktop.shoutboxFeed.openStreams, { timeout: 10_000 }).toBe(0);
    const open = await connect(carol);
    expect(context.services.desktop.shoutboxFeed.openStreams).toBe(1);
    await context.app.close();
    await open.waitFor((c) => c.ended);
    expect(context.services.desktop.shoutboxFeed.openStreams).toBe(0);
  });
});
