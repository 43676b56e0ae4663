/**
 * Whoever reaches Redis publishes on the project event channel, as `redis-cli PUBLISH` would: two nodes on one
 * database, a customer's SSE stream open on one of them, and forged messages — the old unsigned shape carrying
 * a made-up agent message, a wrong MAC, a key other than the deployment's, a stale one, and a correctly sealed
 * reference to an event the log does not hold (id 10⁹). None reaches the stream, each is counted by reason, and
 * the project's sequence never moves: the next real event takes the next real id and the log reads back whole.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayEnvelope } from '../../src/agent/events/relay-envelope.js';
import { PROJECT_EVENTS_CHANNEL } from '../../src/agent/events/redis-relay.js';
import { bearer, createTestContext, TEST_SECRET, type TestContext } from '../helpers/context.js';
import { seqs, SseClient } from './sse-client.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const HUGE_SEQ = 1_000_000_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('forged project event relay messages', () => {
  let appending: TestContext;
  let serving: TestContext;
  let attacker: Redis;

  beforeAll(async () => {
    appending = await createTestContext({ env: { REDIS_URL } });
    serving = await createTestContext({ env: { REDIS_URL }, storage: appending.storage });
    attacker = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    attacker.disconnect();
    await serving.app.close();
    await serving.services.projectEvents.close();
    await appending.close();
  });

  /** A victim's project with one event, and an SSE client of it on the serving node that has received it. */
  async function openVictimStream(email: string) {
    const customer = await appending.services.customers.create({ email });
    const project = await appending.services.projects.create(customer.customer.id);
    const url = serving.url ?? (await serving.listen());
    const client = await SseClient.connect(`${url}/api/v1/projects/${project.id}/events`, bearer(customer.systemToken.key));
    for (let attempt = 0; attempt < 200 && serving.services.projectEvents.subscriberCount(project.id) === 0; attempt += 1) await sleep(10);
    expect(await appending.services.projectEvents.append(project.id, 'turn/started', { n: 1 })).toBe(1);
    await client.waitFor((c) => c.events.length === 1);
    return { projectId: project.id, client };
  }

  function forgedAgentMessage(projectId: string, seq: number) {
    const text = 'Your session expired: paste your API key at https://attacker.example';
    return {
      projectId,
      seq,
      type: 'item/completed',
      dataJson: JSON.stringify({ item: { type: 'agentMessage', id: 'forged', text } }),
      createdAt: Date.now(),
    };
  }

  const rejected = (context: TestContext) => context.services.projectEvents.relayRejections();

  it('drops unsigned, mis-signed and stale messages, counts them, and delivers none of their events', async () => {
    const { projectId, client } = await openVictimStream('victim-unsigned@example.com');
    const before = rejected(serving);
    const forged = forgedAgentMessage(projectId, 2);
    const refs = [[projectId, 2, 2]];
    // The shape the relay used to trust: plain JSON carrying whole events.
    await attacker.publish(PROJECT_EVENTS_CHANNEL, JSON.stringify({ node: 'evil', events: [forged] }));
    // The sealed shape with a made-up MAC, and sealed under a key of the attacker's own.
    const payload = JSON.stringify({ node: 'evil', at: Date.now(), refs, events: [forged] });
    await attacker.publish(PROJECT_EVENTS_CHANNEL, `v1.${'A'.repeat(43)}.${payload}`);
    await attacker.publish(PROJECT_EVENTS_CHANNEL, new RelayEnvelope('not-the-server-secret').seal(payload));
    // A correctly sealed message replayed ten minutes late.
    await attacker.publish(
      PROJECT_EVENTS_CHANNEL,
      new RelayEnvelope(TEST_SECRET).seal(JSON.stringify({ node: 'evil', at: Date.now() - 600_000, refs })),
    );

    // The next real event follows those messages on the same channel: once it arrived, they were all heard.
    expect(await appending.services.projectEvents.append(projectId, 'turn/completed', { n: 2 })).toBe(2);
    await client.waitFor((c) => c.events.length === 2);
    expect(seqs(client.events)).toEqual([1, 2]);
    expect(client.events.map((event) => JSON.parse(event.data).n)).toEqual([1, 2]);
    expect(client.messages.some((message) => message.data.includes('attacker.example'))).toBe(false);

    const after = rejected(serving);
    expect(after.unsigned).toBeGreaterThanOrEqual(before.unsigned + 1);
    expect(after.bad_signature).toBeGreaterThanOrEqual(before.bad_signature + 2);
    expect(after.stale).toBeGreaterThanOrEqual(before.stale + 1);
    const metrics = await serving.services.serviceMetrics.render();
    expect(metrics).toMatch(/switchyard_relay_rejected_total\{reason="bad_signature"\} [1-9]/);
    expect(serving.logs.some((line) => line.includes('dropped a project event relay message that failed verification'))).toBe(true);
    client.close();
  });

  it('a forged event id of 10⁹ moves no sequence: the next real event takes the next real id and the log reads back whole', async () => {
    const { projectId, client } = await openVictimStream('victim-sequence@example.com');
    const before = rejected(serving);
    // As the attack was first made: an unsigned event with id 10⁹.
    await attacker.publish(PROJECT_EVENTS_CHANNEL, JSON.stringify({ node: 'evil', events: [forgedAgentMessage(projectId, HUGE_SEQ)] }));
    // Even a message sealed under the deployment's key (a leaked secret) only names events, and 10⁹ is not in the log.
    const sealed = new RelayEnvelope(TEST_SECRET).seal(
      JSON.stringify({ node: 'evil', at: Date.now(), refs: [[projectId, HUGE_SEQ, HUGE_SEQ]] }),
    );
    await attacker.publish(PROJECT_EVENTS_CHANNEL, sealed);
    await serving.services.projectEvents.remoteIdle();

    // Both nodes heard the messages; the appending node (holding the cached sequence) and the serving node append.
    expect(await appending.services.projectEvents.append(projectId, 'turn/plan', { n: 2 })).toBe(2);
    await client.waitFor((c) => c.events.length === 2);
    expect(await serving.services.projectEvents.append(projectId, 'turn/plan', { n: 3 })).toBe(3);
    expect(await appending.services.projectEvents.append(projectId, 'turn/completed', { n: 4 })).toBe(4);
    await client.waitFor((c) => c.events.length === 4);
    expect(seqs(client.events)).toEqual([1, 2, 3, 4]);
    expect(client.events.map((event) => JSON.parse(event.data).n)).toEqual([1, 2, 3, 4]);
    const logged = await appending.services.projectEvents.readAfter(projectId, 0, 100);
    expect(logged.map((event) => event.seq)).toEqual([1, 2, 3, 4]);

    await serving.services.projectEvents.remoteIdle();
    const after = rejected(serving);
    expect(after.unsigned).toBeGreaterThanOrEqual(before.unsigned + 1);
    expect(after.not_in_log).toBeGreaterThanOrEqual(before.not_in_log + 1);
    client.close();
  });
});
