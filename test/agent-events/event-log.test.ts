import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectEventSink } from '../../src/agent/event-sink.js';
import { createTestContext, type TestContext } from '../helpers/context.js';

describe('project event log', () => {
  let context: TestContext;
  let customerId: number;

  beforeAll(async () => {
    context = await createTestContext({ config: { agent: { eventRetention: 10 } } });
    customerId = (await context.services.customers.create({ email: 'log@example.com' })).customer.id;
  });
  afterAll(async () => context.close());

  it('assigns gap-free per-project sequence numbers and stores the data', async () => {
    const one = await context.services.projects.create(customerId);
    const two = await context.services.projects.create(customerId);
    expect(await context.services.projectEvents.append(one.id, 'turn/started', { turn: 1 })).toBe(1);
    expect(await context.services.projectEvents.append(one.id, 'turn/completed', { turn: 1 })).toBe(2);
    expect(await context.services.projectEvents.append(two.id, 'turn/started', null)).toBe(1);
    const stored = await context.services.projectEvents.readAfter(one.id, 0, 10);
    expect(stored.map((event) => [event.seq, event.type, JSON.parse(event.dataJson)])).toEqual([
      [1, 'turn/started', { turn: 1 }],
      [2, 'turn/completed', { turn: 1 }],
    ]);
  });

  it('groups a burst of concurrent appends into few transactions, in order', async () => {
    const project = await context.services.projects.create(customerId);
    const received: number[] = [];
    const unsubscribe = context.services.projectEvents.subscribe(project.id, (event) => received.push(event.seq));
    const commitsBefore = context.services.projectEvents.stats().commits;
    const seqs = await Promise.all(
      Array.from({ length: 300 }, (_, index) => context.services.projectEvents.append(project.id, 'item/delta', { index })),
    );
    unsubscribe();
    expect(seqs).toEqual(Array.from({ length: 300 }, (_, index) => index + 1));
    expect(received).toEqual(seqs);
    expect(context.services.projectEvents.stats().commits - commitsBefore).toBeLessThanOrEqual(3);
  });

  it('appends notifications that arrive together in one commit, in arrival order, without waiting for each (ProjectEventSink)', async () => {
    const project = await context.services.projects.create(customerId);
    const sink = new ProjectEventSink(context.services.projectEvents, context.services.logger);
    const received: string[] = [];
    const unsubscribe = context.services.projectEvents.subscribe(project.id, (event) => received.push(event.type));
    const commitsBefore = context.services.projectEvents.stats().commits;
    const types = ['item/agentMessage/delta', 'thread/tokenUsage/updated', 'account/rateLimits/updated', 'turn/completed'];
    await Promise.all(types.map((type) => sink.append(project.id, type, { type })));
    unsubscribe();
    expect(received).toEqual(types);
    expect(context.services.projectEvents.stats().commits - commitsBefore).toBe(1);
    const stored = await context.services.projectEvents.readAfter(project.id, 0, 10);
    expect(stored.map((event) => [event.seq, event.type])).toEqual(types.map((type, index) => [index + 1, type]));
    // A failed append is logged, never thrown at the notification handler, and does not hold back the next one.
    await expect(sink.append('prj_doesnotexist0000000000', 'a', 1)).resolves.toBeUndefined();
    await sink.append(project.id, 'after', null);
    expect((await context.services.projectEvents.readAfter(project.id, 4, 10)).map((event) => event.type)).toEqual(['after']);
  });

  it('fails only the bad append of a batch', async () => {
    const project = await context.services.projects.create(customerId);
    const results = await Promise.allSettled([
      context.services.projectEvents.append(project.id, 'a', 1),
      context.services.projectEvents.append('prj_doesnotexist0000000000', 'a', 2),
      context.services.projectEvents.append(project.id, 'a', 3),
      context.services.projectEvents.append(project.id, 'bad type\nwith newline', 4),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    const stored = await context.services.projectEvents.readAfter(project.id, 0, 10);
    expect(stored.map((event) => JSON.parse(event.dataJson))).toEqual([1, 3]);
    expect(stored.map((event) => event.seq)).toEqual([1, 2]);
  });

  it('keeps only the newest agent.eventRetention events per project after pruning', async () => {
    const project = await context.services.projects.create(customerId);
    for (let index = 0; index < 25; index += 1) await context.services.projectEvents.append(project.id, 'x', index);
    await context.services.projectEvents.prune();
    const kept = await context.services.projectEvents.readAfter(project.id, 0, 100);
    expect(kept.map((event) => event.seq)).toEqual(Array.from({ length: 10 }, (_, index) => 16 + index));
    expect(await context.services.projectEvents.append(project.id, 'x', 25)).toBe(26);
  });
});
