/**
 * Two nodes on one PostgreSQL database and a private Redis of this file's own: events of a turn that ran while
 * Redis was down reach an SSE client of the other node from the log once Redis is back (gap-free, same
 * connection), and the `power-ai` alias switched on one node routes the other node's next calls within the
 * alias reload period.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseClient } from '../agent-events/sse-client.js';
import { bearer, operatorHeaders } from '../helpers/context.js';
import { TEST_DATABASE_URL } from '../helpers/databases.js';
import { newCustomer } from '../billing/helpers.js';
import { PrivateRedis, startTwoNodes, type TwoNodes } from './harness.js';

/** A node re-reads the stored aliases this often (`ALIAS_REFRESH_MS` of the model router). */
const ALIAS_RELOAD_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(!TEST_DATABASE_URL)('two nodes through a Redis outage and an alias switch', () => {
  it.skip('needs PostgreSQL and Redis: set TEST_DATABASE_URL (a SQLite-only run has no shared database for two nodes)', () => undefined);
});

describe.skipIf(!TEST_DATABASE_URL)('two nodes through a Redis outage and an alias switch', () => {
  let redis: PrivateRedis;
  let cluster: TwoNodes;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    cluster = await startTwoNodes({
      redisUrl: redis.url,
      config: {
        models: [
          {
            id: 'scripted-coder',
            provider: 'scripted',
            upstreamModel: 'scripted-model',
            capabilities: { responsesApi: true, tools: true, images: true },
          },
          {
            id: 'scripted-other',
            provider: 'scripted',
            upstreamModel: 'scripted-other-model',
            capabilities: { responsesApi: true, tools: true },
          },
        ],
      },
    });
  }, 180_000);

  afterAll(async () => {
    // A test that failed during the outage leaves Redis down: the nodes shut down cleanly with it up.
    if (redis && !redis.running) await redis.restart();
    await cluster?.close();
    await redis?.kill();
  });

  it('an SSE client on B receives every event of a turn that ran on A while Redis was down, gap-free and without reconnecting', async () => {
    const { admin, a, b } = cluster;
    const customer = await newCustomer(admin, 100_000_000);
    const headers = bearer(customer.systemToken);
    const post = (url: string, body: unknown = {}) =>
      fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const created = await post(`${a.url}/api/v1/projects`);
    expect(created.status).toBe(201);
    const projectId = ((await created.json()) as { id: string }).id;
    const opened = await post(`${a.url}/api/v1/projects/${projectId}/open`);
    expect(opened.status, await opened.clone().text()).toBe(200);
    const lease = await admin.storage.db
      .selectFrom('scale_leases')
      .selectAll()
      .where('customer_id', '=', customer.customerId)
      .executeTakeFirstOrThrow();
    expect(lease.holder_node).toBe('node-a');
    const logged = async () =>
      (
        await admin.storage.db
          .selectFrom('project_events')
          .select(['seq', 'type'])
          .where('project_id', '=', projectId)
          .orderBy('seq')
          .execute()
      ).map((row) => ({ seq: Number(row.seq), type: row.type }));

    // B's client is live and caught up with everything logged so far.
    const stream = await SseClient.connect(`${b.url}/api/v1/projects/${projectId}/events`, { ...headers, 'last-event-id': '0' });
    const before = await logged();
    await stream.waitFor((client) => client.events.length >= before.length, 10_000);

    await redis.kill();
    const turn = await post(`${a.url}/api/v1/projects/${projectId}/turns`, { prompt: 'Say hello while Redis is away.' });
    expect(turn.status, await turn.clone().text()).toBe(202);
    const { turn_id: turnId } = (await turn.json()) as { turn_id: string };
    const completed = (rows: { type: string }[]) => rows.some((row) => row.type === 'turn/completed');
    await expect.poll(async () => completed(await logged()), { timeout: 30_000, interval: 100 }).toBe(true);
    const during = await logged();
    // Nothing of the turn could cross: B's stream has only what it had before the outage.
    await sleep(300);
    expect(stream.events.map((event) => Number(event.id))).toEqual(before.map((row) => row.seq));

    const restartedAt = Date.now();
    await redis.restart();
    // ioredis reconnects with a back-off of at most 2 s; the resubscribed node then fills the hole from the log
    // (the bound below leaves slack for a loaded machine).
    await stream.waitFor(
      (client) => client.events.some((event) => event.event === 'turn/completed' && JSON.parse(event.data).turn?.id === turnId),
      15_000,
    );
    const caughtUpMs = Date.now() - restartedAt;
    expect(caughtUpMs).toBeLessThan(8_000);
    expect(stream.ended).toBe(false);
    await stream.waitFor((client) => client.events.length >= during.length, 5_000);
    stream.close();
    const ids = stream.events.map((event) => Number(event.id));
    expect(ids).toEqual(ids.map((_, index) => index + 1));
    expect(stream.events.map((event) => ({ seq: Number(event.id), type: event.event }))).toEqual((await logged()).slice(0, ids.length));
    expect(ids.length).toBeGreaterThanOrEqual(during.length);
    // No reconnect frame and no reset: one connection all along.
    expect(stream.messages.some((message) => message.event === 'reconnect' || message.event === 'reset')).toBe(false);

    // Live fan-out works again: the next turn streams on B as it runs.
    const next = await post(`${a.url}/api/v1/projects/${projectId}/turns`, { prompt: 'And again.' });
    expect(next.status, await next.clone().text()).toBe(202);
    const { turn_id: nextTurn } = (await next.json()) as { turn_id: string };
    const again = await SseClient.connect(`${b.url}/api/v1/projects/${projectId}/events`, {
      ...headers,
      'last-event-id': String(ids.at(-1)),
    });
    await again.waitFor(
      (client) => client.events.some((event) => event.event === 'turn/completed' && JSON.parse(event.data).turn?.id === nextTurn),
      30_000,
    );
    again.close();
    expect(Number(again.events[0]!.id)).toBe(ids.at(-1)! + 1);
  }, 120_000);

  it('the power-ai alias switched on A routes the next calls on B to the new model within the reload period', async () => {
    const { admin, upstream, a, b } = cluster;
    upstream.setDefault(() => ({ kind: 'text', text: 'Routed.' }));
    const customer = await newCustomer(admin, 100_000_000);
    const client = new OpenAI({ apiKey: customer.systemToken, baseURL: `${b.url}/v1`, maxRetries: 0 });
    const upstreamModelOfCall = async (): Promise<string> => {
      const seen = upstream.requests.length;
      const completion = await client.chat.completions.create({
        model: 'power-ai',
        messages: [{ role: 'user', content: 'Which model are you?' }],
        max_tokens: 20,
      });
      expect(completion.choices[0]?.message.content).toBe('Routed.');
      const [request] = (await upstream.waitForRequests(seen + 1)).slice(seen);
      return (request!.body as { model: string }).model;
    };
    expect(await upstreamModelOfCall()).toBe('scripted-model');

    const switched = await fetch(`${a.url}/api/admin/aliases/power-ai`, {
      method: 'PUT',
      headers: { ...operatorHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted-other' }),
    });
    expect(switched.status, await switched.clone().text()).toBe(200);
    const switchedAt = Date.now();
    expect(((await switched.json()) as { model: string }).model).toBe('scripted-other');

    // B routes to the new destination within one reload period, and never back to the old one afterwards. The
    // bound is on when the first call routed anew was sent (slack for the calls themselves on a loaded machine).
    let sentAt = Date.now();
    let model = await upstreamModelOfCall();
    while (model !== 'scripted-other-model' && Date.now() - switchedAt < ALIAS_RELOAD_MS + 5_000) {
      await sleep(100);
      sentAt = Date.now();
      model = await upstreamModelOfCall();
    }
    expect(model).toBe('scripted-other-model');
    expect(sentAt - switchedAt).toBeLessThan(ALIAS_RELOAD_MS + 1_000);
    for (let index = 0; index < 3; index += 1) expect(await upstreamModelOfCall()).toBe('scripted-other-model');
    const listed = await fetch(`${b.url}/api/admin/aliases`, { headers: operatorHeaders });
    expect(((await listed.json()) as { aliases: Record<string, string> }).aliases['power-ai']).toBe('scripted-other');
  }, 60_000);
});
