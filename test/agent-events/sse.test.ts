import net from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { seqs, SseClient } from './sse-client.js';

const QUEUE_MAX = 50;

describe('project events over SSE', () => {
  let context: TestContext;
  let url: string;
  let owner: { id: number; key: string };
  let stranger: { key: string };

  beforeAll(async () => {
    context = await createTestContext({ config: { agent: { eventRetention: 10_000, heartbeatMs: 150, subscriberQueueMax: QUEUE_MAX } } });
    url = await context.listen();
    const created = await context.services.customers.create({ email: 'sse-owner@example.com' });
    owner = { id: created.customer.id, key: created.systemToken.key };
    stranger = { key: (await context.services.customers.create({ email: 'sse-stranger@example.com' })).systemToken.key };
  });
  afterAll(async () => context.close());

  const newProject = () => context.services.projects.create(owner.id);
  const append = (projectId: string, count: number, type = 'item/delta') =>
    Promise.all(Array.from({ length: count }, (_, index) => context.services.projectEvents.append(projectId, type, { index })));
  const connect = (projectId: string, headers: Record<string, string> = {}, query = '') =>
    SseClient.connect(`${url}/api/v1/projects/${projectId}/events${query}`, { ...bearer(owner.key), ...headers });
  const waitForSubscribers = async (count: number) => {
    for (let attempt = 0; attempt < 200 && context.services.projectEvents.stats().subscribers !== count; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(context.services.projectEvents.stats().subscribers).toBe(count);
  };

  it('delivers live events with id, event name and JSON data, plus SSE headers', async () => {
    const project = await newProject();
    const client = await connect(project.id, { 'x-request-id': 'sse-live-1' });
    expect(client.response.statusCode).toBe(200);
    expect(client.response.headers['content-type']).toContain('text/event-stream');
    expect(client.response.headers['cache-control']).toContain('no-cache');
    expect(client.response.headers['x-request-id']).toMatch(/^req_/);
    expect(client.response.headers['x-client-request-id']).toBe('sse-live-1');
    // The body ends with the connection: frames are written as they are, without chunked framing.
    expect(client.response.headers['transfer-encoding']).toBeUndefined();
    expect(client.response.headers.connection).toBe('close');
    await waitForSubscribers(1);
    await context.services.projectEvents.append(project.id, 'turn/started', { turnId: 't1' });
    await context.services.projectEvents.append(project.id, 'item/agentMessage/delta', { delta: 'hé\nllo' });
    await client.waitFor((c) => c.events.length === 2);
    expect(client.events).toEqual([
      { id: '1', event: 'turn/started', data: '{"turnId":"t1"}' },
      { id: '2', event: 'item/agentMessage/delta', data: '{"delta":"hé\\nllo"}' },
    ]);
    client.close();
    await waitForSubscribers(0);
  });

  it('replays every missed event once, in order, after a reconnect with Last-Event-ID or ?after=', async () => {
    const project = await newProject();
    const first = await connect(project.id);
    await waitForSubscribers(1);
    await append(project.id, 5);
    await first.waitFor((c) => c.events.length === 5);
    const lastId = first.lastEventId!;
    first.close();
    await waitForSubscribers(0);
    await append(project.id, 7);

    const resumed = await connect(project.id, { 'last-event-id': lastId });
    // Appends racing the replay must be neither lost nor duplicated.
    const racing = append(project.id, 20);
    await racing;
    await resumed.waitFor((c) => c.events.length >= 27);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seqs(resumed.events)).toEqual(Array.from({ length: 27 }, (_, index) => index + 6));
    resumed.close();

    const byQuery = await connect(project.id, {}, '?after=30');
    await byQuery.waitFor((c) => c.events.length === 2);
    expect(seqs(byQuery.events)).toEqual([31, 32]);
    // Last-Event-ID wins over the query (a reconnecting EventSource keeps its first URL).
    const both = await connect(project.id, { 'last-event-id': '31' }, '?after=0');
    await both.waitFor((c) => c.events.length === 1);
    expect(seqs(both.events)).toEqual([32]);
    byQuery.close();
    both.close();
  });

  it('sends heartbeat comments while idle', async () => {
    const project = await newProject();
    const client = await connect(project.id);
    await client.waitFor((c) => c.comments.filter((comment) => comment === 'heartbeat').length >= 2, 3_000);
    expect(client.events).toEqual([]);
    client.close();
  });

  it('gives several clients the identical sequence', async () => {
    const project = await newProject();
    const clients = await Promise.all(Array.from({ length: 4 }, () => connect(project.id)));
    await waitForSubscribers(4);
    await append(project.id, 150, 'turn/diff');
    await Promise.all(clients.map((client) => client.waitFor((c) => c.events.length === 150)));
    const expected = Array.from({ length: 150 }, (_, index) => index + 1);
    for (const client of clients) expect(seqs(client.events)).toEqual(expected);
    expect(new Set(clients.map((client) => JSON.stringify(client.events))).size).toBe(1);
    clients.forEach((client) => client.close());
    await waitForSubscribers(0);
  });

  it('disconnects a client that never reads, keeps its queue bounded and leaves other clients whole', async () => {
    const project = await newProject();
    const port = Number(new URL(url).port);
    const slow = net.connect(port, '127.0.0.1');
    slow.on('error', () => undefined);
    await new Promise((resolve) => slow.once('connect', resolve));
    slow.write(`GET /api/v1/projects/${project.id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner.key}\r\n\r\n`);
    slow.pause();
    const healthy = await connect(project.id);
    await waitForSubscribers(2);
    const overflowsBefore = context.services.projectEvents.stats().overflowDisconnects;

    const payload = 'x'.repeat(32 * 1024);
    const total = 1_500;
    const burst = 25;
    for (let start = 0; start < total; start += burst) {
      await Promise.all(
        Array.from({ length: burst }, (_, index) =>
          context.services.projectEvents.append(project.id, 'item/delta', { index: start + index, payload }),
        ),
      );
      expect(context.services.projectEvents.stats().queueLengthMaxSeen).toBeLessThanOrEqual(QUEUE_MAX);
      // The healthy client reads everything; pacing by it keeps each burst within what a reading client absorbs.
      await healthy.waitFor((c) => c.events.length === start + burst, 30_000);
    }
    await healthy.waitFor((c) => c.events.length === total, 30_000);
    await waitForSubscribers(1);
    const stats = context.services.projectEvents.stats();
    expect(stats.overflowDisconnects).toBe(overflowsBefore + 1);
    expect(stats.queueLengthMaxSeen).toBeLessThanOrEqual(QUEUE_MAX);
    expect(seqs(healthy.events)).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    healthy.close();
    slow.destroy();
    await waitForSubscribers(0);
  });

  it('ends an overflowing client with an overflow frame naming its last id, from which it resumes without loss', async () => {
    const project = await newProject();
    const lagging = await connect(project.id);
    await waitForSubscribers(1);
    lagging.response.pause();
    const overflowsBefore = context.services.projectEvents.stats().overflowDisconnects;
    const payload = 'y'.repeat(16 * 1024);
    let total = 0;
    while (context.services.projectEvents.stats().overflowDisconnects === overflowsBefore) {
      await Promise.all(Array.from({ length: 25 }, () => context.services.projectEvents.append(project.id, 'item/delta', { payload })));
      total += 25;
      expect(total).toBeLessThan(5_000);
    }
    lagging.response.resume();
    await lagging.waitFor((c) => c.ended);
    const overflow = lagging.messages.at(-1)!;
    expect(overflow.event).toBe('overflow');
    const lastId = JSON.parse(overflow.data).last_event_id as number;
    expect(lastId).toBe(Number(lagging.lastEventId));
    const delivered = seqs(lagging.events);
    expect(delivered).toEqual(Array.from({ length: lastId }, (_, index) => index + 1));

    const resumed = await connect(project.id, { 'last-event-id': String(lastId) });
    await resumed.waitFor((c) => c.events.length === total - lastId, 20_000);
    expect([...delivered, ...seqs(resumed.events)]).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    resumed.close();
    await waitForSubscribers(0);
  });

  it('tells a client with a cursor older than retention to reset, then replays what exists', async () => {
    const retained = await createTestContext({ config: { agent: { eventRetention: 10, heartbeatMs: 1_000 } } });
    try {
      const base = await retained.listen();
      const customer = await retained.services.customers.create({ email: 'reset@example.com' });
      const project = await retained.services.projects.create(customer.customer.id);
      for (let index = 0; index < 30; index += 1) await retained.services.projectEvents.append(project.id, 'x', index);
      await retained.services.projectEvents.prune();
      const client = await SseClient.connect(`${base}/api/v1/projects/${project.id}/events`, {
        ...bearer(customer.systemToken.key),
        'last-event-id': '3',
      });
      await client.waitFor((c) => c.events.length === 10);
      expect(client.messages[0]).toMatchObject({ event: 'reset' });
      expect(client.messages[0]!.id).toBeUndefined();
      expect(JSON.parse(client.messages[0]!.data)).toEqual({ oldest_seq: 21, requested_after: 3 });
      expect(seqs(client.messages)).toEqual(Array.from({ length: 10 }, (_, index) => 21 + index));
      client.close();

      const current = await SseClient.connect(`${base}/api/v1/projects/${project.id}/events?after=25`, bearer(customer.systemToken.key));
      await current.waitFor((c) => c.events.length === 5);
      expect(current.messages.some((message) => message.event === 'reset')).toBe(false);
      current.close();

      const ahead = await SseClient.connect(`${base}/api/v1/projects/${project.id}/events?after=999`, bearer(customer.systemToken.key));
      await ahead.waitFor((c) => c.events.length === 10);
      expect(ahead.messages[0]).toMatchObject({ event: 'reset' });
      // The client is told which cursor it sent, as for a cursor older than retention.
      expect(JSON.parse(ahead.messages[0]!.data)).toEqual({ oldest_seq: 21, requested_after: 999 });
      ahead.close();
    } finally {
      await retained.close();
    }
  });

  it('ends at once, without a subscription left behind, when the client left before the stream started', async () => {
    const project = await newProject();
    await append(project.id, 3);
    for (const after of [null, 0]) {
      // A client that disconnects while the route still checks the project: its response is closed before the stream runs.
      const sink = new PassThrough();
      sink.destroy();
      await new Promise((resolve) => setImmediate(resolve));
      const ended = context.services.projectEvents.stream({ projectId: project.id, after, sink }).then(() => 'ended');
      const timeout = new Promise((resolve) => setTimeout(() => resolve('still running'), 1_000));
      expect(await Promise.race([ended, timeout])).toBe('ended');
      expect(context.services.projectEvents.subscriberCount(project.id)).toBe(0);
    }
  });

  it('ends open streams when the service shuts down', async () => {
    const closing = await createTestContext({ config: { agent: { heartbeatMs: 1_000 } } });
    const base = await closing.listen();
    const customer = await closing.services.customers.create({ email: 'shutdown@example.com' });
    const project = await closing.services.projects.create(customer.customer.id);
    const client = await SseClient.connect(`${base}/api/v1/projects/${project.id}/events`, bearer(customer.systemToken.key));
    for (let attempt = 0; attempt < 200 && closing.services.projectEvents.stats().subscribers === 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await closing.close();
    await client.waitFor((c) => c.ended, 5_000);
    expect(closing.services.projectEvents.stats().subscribers).toBe(0);
  });

  it('answers 404 for another customer’s or an unknown project and 422 for a bad cursor', async () => {
    const project = await newProject();
    const foreign = await context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${project.id}/events`,
      headers: bearer(stranger.key),
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ code: 'NOT_FOUND', detail: 'Project not found' });
    const unknown = await context.app.inject({
      method: 'GET',
      url: '/api/v1/projects/prj_AAAAAAAAAAAAAAAAAAAAAAAA/events',
      headers: bearer(owner.key),
    });
    expect(unknown.statusCode).toBe(404);
    const badHeader = await context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${project.id}/events`,
      headers: { ...bearer(owner.key), 'last-event-id': 'abc' },
    });
    expect(badHeader.statusCode).toBe(422);
    const badQuery = await context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${project.id}/events?after=-1`,
      headers: bearer(owner.key),
    });
    expect(badQuery.statusCode).toBe(422);
    expect(context.services.projectEvents.stats().subscribers).toBe(0);
  });
});
