/**
 * Rolling restart of a lease holder (SIGTERM) with two nodes: the holder stops taking turns, lets running ones
 * finish within the drain time (its listener still serves their model requests), interrupts those still running
 * near the deadline and logs their end, then stops its app-servers and releases its leases: the other node
 * serves the customers at once, long before the lease would have expired, and clients lose no event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseClient } from '../agent-events/sse-client.js';
import type { RecordedRequest } from '../fakes/model-upstream.js';
import { bearer } from '../helpers/context.js';
import { TEST_DATABASE_URL } from '../helpers/databases.js';
import { newCustomer } from '../billing/helpers.js';
import { startTwoNodes, type TwoNodes } from './harness.js';
import type { Node } from './nodes.js';

/** Long enough that a takeover "well before expiry" cannot be an expiry. */
const LEASE_TTL_MS = 60_000;
const DRAIN_TIMEOUT_MS = 12_000;

describe.runIf(!TEST_DATABASE_URL)('draining a lease holder', () => {
  it.skip('needs PostgreSQL and Redis: set TEST_DATABASE_URL (a SQLite-only run has no shared database for two nodes)', () => undefined);
});

describe.skipIf(!TEST_DATABASE_URL)('draining a lease holder', () => {
  let cluster: TwoNodes;
  let a: Node;
  let b: Node;

  beforeAll(async () => {
    cluster = await startTwoNodes({ leaseTtlMs: LEASE_TTL_MS, config: { server: { drainTimeoutMs: DRAIN_TIMEOUT_MS } } });
    ({ a, b } = cluster);
    // The newest prompt names what the scripted model does: a slow answer (a few seconds), none at all, or a plain one.
    cluster.upstream.setDefault((request: RecordedRequest) => {
      const body = JSON.stringify(request.body ?? '');
      const newest = ['SLOW-TURN', 'HANG-TURN'].reduce(
        (found, marker) => (body.lastIndexOf(marker) > body.lastIndexOf(found) ? marker : found),
        'PLAIN-TURN',
      );
      if (newest === 'SLOW-TURN') return { kind: 'text', text: 'one two three four five six', chunks: 6, chunkDelayMs: 500 };
      if (newest === 'HANG-TURN') return { kind: 'hang' };
      return { kind: 'text', text: 'Hello from the scripted model.' };
    });
  }, 180_000);

  afterAll(async () => {
    await cluster?.close();
  });

  async function customerWithProjects(count: number) {
    const customer = await newCustomer(cluster.admin, 100_000_000);
    const headers = bearer(customer.systemToken);
    const post = (node: Node, path: string, body: unknown = {}) =>
      fetch(`${node.url}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const projectIds: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const created = await post(a, '/api/v1/projects');
      expect(created.status).toBe(201);
      const projectId = ((await created.json()) as { id: string }).id;
      const opened = await post(a, `/api/v1/projects/${projectId}/open`);
      expect(opened.status, await opened.clone().text()).toBe(200);
      projectIds.push(projectId);
    }
    const lease = async () =>
      cluster.admin.storage.db.selectFrom('scale_leases').selectAll().where('customer_id', '=', customer.customerId).executeTakeFirst();
    expect((await lease())?.holder_node).toBe('node-a');
    return { customer, headers, post, projectIds, lease };
  }

  const logSeqs = async (projectId: string) =>
    (
      await cluster.admin.storage.db.selectFrom('project_events').select('seq').where('project_id', '=', projectId).orderBy('seq').execute()
    ).map((row) => Number(row.seq));

  it('SIGTERM with no turn running: the lease is released and the other node serves the project at once', async () => {
    const { headers, projectIds, lease } = await customerWithProjects(1);
    const signalledAt = Date.now();
    await a.stop();
    const released = await lease();
    expect(Number(released!.expires_at)).toBeLessThan(Date.now());
    const state = await fetch(`${b.url}/api/v1/projects/${projectIds[0]}/state`, { headers });
    expect(state.status, await state.clone().text()).toBe(200);
    expect(state.headers.get('x-switchyard-served-by')).toBeNull();
    expect((await lease())?.holder_node).toBe('node-b');
    expect(Date.now() - signalledAt).toBeLessThan(LEASE_TTL_MS / 2);
    a = await cluster.startAgain(a);
  }, 120_000);

  it('SIGTERM mid-turn: a turn that ends within the drain completes, one still running is interrupted and logged; clients moving to B lose nothing; the next turn runs on B', async () => {
    const { headers, post, projectIds, lease } = await customerWithProjects(2);
    const [slowProject, hangingProject] = projectIds as [string, string];
    const before = new Map<string, number>();
    for (const projectId of projectIds) before.set(projectId, (await logSeqs(projectId)).at(-1) ?? 0);
    const connect = (node: Node, projectId: string, after: string) =>
      SseClient.connect(`${node.url}/api/v1/projects/${projectId}/events`, { ...headers, 'last-event-id': after });
    const onA = new Map<string, SseClient>();
    for (const projectId of projectIds) onA.set(projectId, await connect(a, projectId, String(before.get(projectId))));

    const seen = cluster.upstream.requests.length;
    const slow = await post(b, `/api/v1/projects/${slowProject}/turns`, { prompt: 'SLOW-TURN: count to six.' });
    expect(slow.status, await slow.clone().text()).toBe(202);
    const { turn_id: slowTurn } = (await slow.json()) as { turn_id: string };
    const hanging = await post(b, `/api/v1/projects/${hangingProject}/turns`, { prompt: 'HANG-TURN: wait forever.' });
    expect(hanging.status, await hanging.clone().text()).toBe(202);
    const { turn_id: hangingTurn } = (await hanging.json()) as { turn_id: string };
    // Both turns are talking to the model through node A.
    await cluster.upstream.waitForRequests(seen + 2, 30_000);

    const signalledAt = Date.now();
    a.child.kill('SIGTERM');
    const exited = new Promise<number>((resolve) => a.child.once('exit', () => resolve(Date.now())));
    // Streams on A end with a `reconnect` frame; their clients come back through B with their cursors.
    const resumed = new Map<string, SseClient>();
    for (const [projectId, client] of onA) {
      await client.waitFor((stream) => stream.ended, 10_000);
      resumed.set(projectId, await connect(b, projectId, client.lastEventId ?? String(before.get(projectId))));
    }
    // While A drains, it starts no turn (B forwards to A, which still holds the lease and answers 503).
    const refused = await post(b, `/api/v1/projects/${slowProject}/turns`, { prompt: 'PLAIN-TURN: another one.' });
    expect(refused.status).toBe(503);

    const ended = (projectId: string, turnId: string) => (stream: SseClient) =>
      stream.events.some(
        (event) =>
          (event.event === 'turn/completed' && JSON.parse(event.data).turn?.id === turnId) ||
          (event.event === 'runtime/exited' && JSON.parse(event.data).turn_id === turnId),
      );
    await resumed.get(slowProject)!.waitFor(ended(slowProject, slowTurn), DRAIN_TIMEOUT_MS + 10_000);
    await resumed.get(hangingProject)!.waitFor(ended(hangingProject, hangingTurn), DRAIN_TIMEOUT_MS + 10_000);
    const slowEnd = resumed.get(slowProject)!.events.find((event) => event.event === 'turn/completed')!;
    expect(JSON.parse(slowEnd.data).turn.status).toBe('completed');
    const hangingEnd = resumed
      .get(hangingProject)!
      .events.find((event) => ['turn/completed', 'runtime/exited'].includes(event.event ?? ''))!;
    if (hangingEnd.event === 'turn/completed') expect(JSON.parse(hangingEnd.data).turn.status).toBe('interrupted');
    else expect(JSON.parse(hangingEnd.data).reason).toBe('draining');

    // A waited for its turns (well past the old ~2 s), released the lease, and B serves the customer at once.
    const exitedAt = await exited;
    expect(exitedAt - signalledAt).toBeGreaterThan(2_000);
    expect(exitedAt - signalledAt).toBeLessThan(DRAIN_TIMEOUT_MS + 15_000);
    expect(Number((await lease())!.expires_at)).toBeLessThan(Date.now());
    const state = await fetch(`${b.url}/api/v1/projects/${hangingProject}/state`, { headers });
    expect(state.status, await state.clone().text()).toBe(200);
    expect(state.headers.get('x-switchyard-served-by')).toBeNull();
    expect((await lease())?.holder_node).toBe('node-b');
    expect(Date.now() - signalledAt).toBeLessThan(LEASE_TTL_MS / 2);

    const thread = await fetch(`${b.url}/api/v1/projects/${hangingProject}/thread?include_turns=true`, { headers });
    expect(thread.status).toBe(200);
    const turns = ((await thread.json()) as { thread: { turns: { id: string; status: string }[] } }).thread.turns;
    expect(turns.find((entry) => entry.id === hangingTurn)?.status).toBe('interrupted');

    const next = await post(b, `/api/v1/projects/${hangingProject}/turns`, { prompt: 'PLAIN-TURN: are you there?' });
    expect(next.status, await next.clone().text()).toBe(202);
    expect(next.headers.get('x-switchyard-served-by')).toBeNull();
    const { turn_id: nextTurn } = (await next.json()) as { turn_id: string };
    await resumed
      .get(hangingProject)!
      .waitFor(
        (stream) =>
          stream.events.some(
            (event) =>
              event.event === 'turn/completed' &&
              JSON.parse(event.data).turn?.id === nextTurn &&
              JSON.parse(event.data).turn?.status === 'completed',
          ),
        30_000,
      );

    // Nothing lost: each client's events before and after the move read the log exactly.
    for (const projectId of projectIds) {
      resumed.get(projectId)!.close();
      const log = (await logSeqs(projectId)).filter((seq) => seq > before.get(projectId)!);
      const received = [...onA.get(projectId)!.events, ...resumed.get(projectId)!.events].map((event) => Number(event.id));
      expect(received).toEqual(log.slice(0, received.length));
    }
  }, 180_000);
});
