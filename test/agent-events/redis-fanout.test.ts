import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_EVENTS_CHANNEL } from '../../src/agent/events/redis-relay.js';
import { RelayEnvelope } from '../../src/agent/events/relay-envelope.js';
import { bearer, createTestContext, TEST_SECRET, type TestContext } from '../helpers/context.js';
import { seqs, SseClient } from './sse-client.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('project events across nodes through Redis', () => {
  let appending: TestContext;
  let serving: TestContext;

  beforeAll(async () => {
    appending = await createTestContext({ env: { REDIS_URL } });
    // A second node on the same database, as in a scale-out deployment.
    serving = await createTestContext({ env: { REDIS_URL }, storage: appending.storage });
  });
  afterAll(async () => {
    await serving.app.close();
    await serving.services.projectEvents.close();
    await appending.close();
  });

  it('delivers events appended on one node to SSE clients of another, in order and once', async () => {
    const customer = await appending.services.customers.create({ email: 'nodes@example.com' });
    const project = await appending.services.projects.create(customer.customer.id);
    const url = await serving.listen();
    const client = await SseClient.connect(`${url}/api/v1/projects/${project.id}/events`, bearer(customer.systemToken.key));
    for (let attempt = 0; attempt < 200 && serving.services.projectEvents.stats().subscribers === 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(
      Array.from({ length: 60 }, (_, index) => appending.services.projectEvents.append(project.id, 'turn/plan', { index })),
    );
    await client.waitFor((c) => c.events.length === 60);
    expect(seqs(client.events)).toEqual(Array.from({ length: 60 }, (_, index) => index + 1));
    client.close();
  });

  it('fills a hole left by a lost relay message from the log', async () => {
    const customer = await appending.services.customers.create({ email: 'lost@example.com' });
    const project = await appending.services.projects.create(customer.customer.id);
    const url = serving.url ?? (await serving.listen());
    const client = await SseClient.connect(`${url}/api/v1/projects/${project.id}/events`, bearer(customer.systemToken.key));
    for (let attempt = 0; attempt < 200 && serving.services.projectEvents.subscriberCount(project.id) === 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await appending.services.projectEvents.append(project.id, 'turn/started', { n: 1 });
    await client.waitFor((c) => c.events.length === 1);
    // Events 2 and 3 reach the log but their relay messages are lost; only event 4 is relayed.
    const rows = [2, 3, 4].map((seq) => ({
      project_id: project.id,
      seq,
      type: 'item/delta',
      data: JSON.stringify({ n: seq }),
      created_at: Date.now(),
    }));
    await appending.storage.db.insertInto('project_events').values(rows).execute();
    const publisher = new Redis(REDIS_URL);
    try {
      const last = rows[2]!;
      const message = { node: 'another-node', at: Date.now(), refs: [[project.id, last.seq, last.seq]] };
      await publisher.publish(PROJECT_EVENTS_CHANNEL, new RelayEnvelope(TEST_SECRET).seal(JSON.stringify(message)));
    } finally {
      publisher.disconnect();
    }
    await client.waitFor((c) => c.events.length === 4);
    expect(seqs(client.events)).toEqual([1, 2, 3, 4]);
    expect(client.events.map((event) => JSON.parse(event.data).n)).toEqual([1, 2, 3, 4]);
    // The appending node heard the relay too: it dropped its cached sequence and reads the newest from the table.
    expect(await appending.services.projectEvents.append(project.id, 'turn/completed', { n: 5 })).toBe(5);
    await client.waitFor((c) => c.events.length === 5);
    client.close();
  });
});
