import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseClient, seqs } from '../agent-events/sse-client.js';
import { dataOf, startDirectHarness, type Caller, type DirectHarness } from './support.js';

describe('direct thread and turn surface', () => {
  let harness: DirectHarness;
  let alice: Caller;
  beforeAll(async () => {
    harness = await startDirectHarness();
    alice = { id: harness.customer.id, headers: harness.customer.headers };
  });
  afterAll(async () => harness?.close());

  const inject = (method: 'GET' | 'POST', url: string, payload?: unknown, headers = alice.headers) =>
    harness.context.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 5));

  async function threadWithTurn(cwd: string, prompt: string): Promise<string> {
    const started = await inject('POST', '/api/threads', { cwd });
    expect(started.statusCode).toBe(201);
    const threadId = started.json().thread.id as string;
    const turn = await inject('POST', '/api/turns', { thread_id: threadId, input: prompt });
    expect(turn.statusCode).toBe(202);
    const turnId = turn.json().turn_id as string;
    await harness.waitForDirectEvent(alice.id, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === turnId);
    return threadId;
  }

  it('starts a thread in the workspace, runs a turn and reads it back with its turns', async () => {
    harness.upstream.enqueue({ kind: 'text', text: 'Direct hello.' });
    const started = await inject('POST', '/api/threads', {
      cwd: 'alpha',
      model: 'power-ai',
      approval_policy: 'never',
      base_instructions: 'BASE-MARKER',
    });
    expect(started.statusCode).toBe(201);
    const body = started.json();
    const root = await harness.context.services.direct.workspaceRoot(alice.id);
    // Answers name the working directory relative to the workspace root, never the server's absolute path.
    expect(body.thread.cwd).toBe('alpha');
    expect(started.body).not.toContain(root);
    expect(body.model).toBe('power-ai');
    expect(body.approval_policy).toBe('never');
    const threadId = body.thread.id as string;
    expect(
      (await harness.directEvents(alice.id)).some((event) => event.type === 'thread/started' && dataOf(event).thread.id === threadId),
    ).toBe(true);

    const turn = await inject('POST', '/api/turns', { thread_id: threadId, input: [{ type: 'text', text: 'say hello' }] });
    expect(turn.statusCode).toBe(202);
    const completed = await harness.waitForDirectEvent(
      alice.id,
      (event) => event.type === 'turn/completed' && dataOf(event).turn.id === turn.json().turn_id,
    );
    expect(dataOf(completed).turn.status).toBe('completed');
    const call = harness.upstream.requests.at(-1)!;
    expect(call.body.instructions).toBe('BASE-MARKER');

    const withTurns = await inject('GET', `/api/threads/${threadId}?include_turns=true`);
    expect(withTurns.statusCode).toBe(200);
    const items = withTurns.json().turns[0].items as { type: string; text?: string }[];
    expect(items.find((item) => item.type === 'agentMessage')?.text).toBe('Direct hello.');
    const without = await inject('GET', `/api/threads/${threadId}`);
    expect(without.json().turns).toBeUndefined();
    expect(without.json().preview).toBe('say hello');
  });

  it('refuses working directories outside the caller’s workspace root and records nothing', async () => {
    const before = await harness.context.storage.db.selectFrom('direct_threads').select('thread_id').execute();
    for (const cwd of ['/etc', '../other-customer', '/tmp']) {
      const response = await inject('POST', '/api/threads', { cwd });
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('FORBIDDEN');
    }
    expect((await inject('POST', '/api/projects/open', { cwd: '/etc' })).statusCode).toBe(403);
    expect((await inject('GET', '/api/threads?cwd=/etc')).statusCode).toBe(403);
    const after = await harness.context.storage.db.selectFrom('direct_threads').select('thread_id').execute();
    expect(after.length).toBe(before.length);
  });

  it('lists the caller’s threads with cursor paging, and resumes one', async () => {
    const ids = [];
    for (let index = 0; index < 3; index += 1) {
      // The app-server's list cursor has whole-second precision: threads of one second straddling a page boundary are skipped.
      await nextSecond();
      ids.push(await threadWithTurn('paging', `prompt number ${index}`));
    }
    const first = await inject('GET', '/api/threads?cwd=paging&limit=2');
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toHaveLength(2);
    expect(first.json().next_cursor).toEqual(expect.any(String));
    const second = await inject('GET', `/api/threads?cwd=paging&limit=2&cursor=${encodeURIComponent(first.json().next_cursor)}`);
    const listed = [...first.json().data, ...second.json().data].map((thread: { id: string }) => thread.id);
    expect(new Set(listed)).toEqual(new Set(ids));
    expect(second.json().next_cursor).toBeNull();
    const searched = await inject('GET', '/api/threads?search_term=number%201');
    expect(searched.json().data.map((thread: { id: string }) => thread.id)).toEqual([ids[1]]);
    expect((await inject('GET', '/api/threads?limit=101')).statusCode).toBe(422);

    const resumed = await inject('POST', `/api/threads/${ids[0]}/resume`);
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json().thread.id).toBe(ids[0]);
    expect(resumed.json().thread.turns).toHaveLength(1);
  });

  it('opens a working directory: resumes its latest thread, else starts one', async () => {
    const older = await threadWithTurn('opened', 'older thread');
    const newer = await threadWithTurn('opened', 'newer thread');
    expect(newer).not.toBe(older);
    const opened = await inject('POST', '/api/projects/open', { cwd: 'opened' });
    expect(opened.statusCode).toBe(200);
    expect(opened.json().resumed).toBe(true);
    expect(opened.json().thread.id).toBe(newer);

    const fresh = await inject('POST', '/api/projects/open', { cwd: 'fresh/dir' });
    expect(fresh.json().resumed).toBe(false);
    // A thread is listed by the app-server only after its first turn; the owner record still finds it.
    const again = await inject('POST', '/api/projects/open', { cwd: 'fresh/dir' });
    expect(again.json(), again.body).toMatchObject({ resumed: true });
    expect(again.json().thread.id).toBe(fresh.json().thread.id);
  });

  it('runs one turn per thread, interrupts it, and needs thread_id to interrupt', async () => {
    const threadId = (await inject('POST', '/api/threads', { cwd: 'interrupts' })).json().thread.id as string;
    harness.upstream.enqueue({ kind: 'hang' });
    const turn = await inject('POST', '/api/turns', { thread_id: threadId, input: 'wait forever' });
    expect(turn.statusCode).toBe(202);
    const turnId = turn.json().turn_id as string;
    await harness.waitForDirectEvent(alice.id, (event) => event.type === 'turn/started' && dataOf(event).turn.id === turnId);

    const second = await inject('POST', '/api/turns', { thread_id: threadId, input: 'me too' });
    expect(second.statusCode).toBe(409);
    const noThread = await inject('POST', `/api/turns/${turnId}/interrupt`);
    expect(noThread.statusCode).toBe(422);
    expect(noThread.json().detail[0].loc).toEqual(['query', 'thread_id']);

    const interrupted = await inject('POST', `/api/turns/${turnId}/interrupt?thread_id=${threadId}`);
    expect(interrupted.statusCode).toBe(200);
    const completed = await harness.waitForDirectEvent(
      alice.id,
      (event) => event.type === 'turn/completed' && dataOf(event).turn.id === turnId,
    );
    expect(dataOf(completed).turn.status).toBe('interrupted');
    expect((await inject('POST', `/api/turns/${turnId}/interrupt?thread_id=${threadId}`)).statusCode).toBe(409);
  });

  it('hides other customers’ threads (404) and keeps their lists apart', async () => {
    const own = (await inject('POST', '/api/threads', { cwd: 'private' })).json().thread.id as string;
    const bob = await harness.newCustomer();
    expect((await inject('GET', `/api/threads/${own}`, undefined, bob.headers)).statusCode).toBe(404);
    expect((await inject('POST', `/api/threads/${own}/resume`, undefined, bob.headers)).statusCode).toBe(404);
    expect((await inject('POST', '/api/turns', { thread_id: own, input: 'hijack' }, bob.headers)).statusCode).toBe(404);
    expect((await inject('GET', '/api/threads', undefined, bob.headers)).json().data).toEqual([]);
    // Unknown ids are 404 too, straight from the caller's own app-server.
    expect((await inject('GET', '/api/threads/01a21486-df11-72b0-8000-000000000000', undefined, bob.headers)).statusCode).toBe(404);
  });

  it('lists models from the app-server merged with the gateway, and reports the release', async () => {
    const models = await inject('GET', '/api/models');
    expect(models.statusCode).toBe(200);
    const power = models.json().data.find((model: { id: string }) => model.id === 'power-ai');
    expect(power).toMatchObject({ type: 'alias', agent: true, gateway: true });
    expect(power.supported_reasoning_efforts).toContain('xhigh');
    expect(models.json().data.some((model: { id: string }) => model.id === 'scripted-coder')).toBe(true);

    const release = await inject('GET', '/api/core/releases/current');
    expect(release.json()).toMatchObject({ app_server_version: '0.147.0', reference_cli_target: '0.147.0', synced: true });
  });
});

describe('direct threads across app-server restarts and over SSE', () => {
  let harness: DirectHarness;
  beforeAll(async () => {
    harness = await startDirectHarness();
  });
  afterAll(async () => harness?.close());

  it('streams the caller’s direct events over SSE with replay, and resumes a saved thread after its app-server stopped', async () => {
    const { context, customer } = harness;
    const headers = customer.headers;
    const threadId = (await context.app.inject({ method: 'POST', url: '/api/threads', headers, payload: { cwd: 'sse' } })).json().thread
      .id as string;
    const first = await context.app.inject({ method: 'POST', url: '/api/turns', headers, payload: { thread_id: threadId, input: 'one' } });
    await harness.waitForDirectEvent(
      customer.id,
      (event) => event.type === 'turn/completed' && dataOf(event).turn.id === first.json().turn_id,
    );

    const client = await SseClient.connect(`${context.url}/api/events?after=0`, headers);
    try {
      expect(client.response.statusCode).toBe(200);
      await client.waitFor((sse) => sse.events.some((message) => message.event === 'turn/completed'));
      expect(client.events[0]).toMatchObject({ id: '1', event: 'thread/started' });

      // The customer's app-server goes away (idle stop); the saved thread is read from disk and resumed for the next turn.
      await context.services.agent.supervisor.stop(customer.id);
      const read = await context.app.inject({ method: 'GET', url: `/api/threads/${threadId}?include_turns=true`, headers });
      expect(read.json().turns).toHaveLength(1);
      const second = await context.app.inject({
        method: 'POST',
        url: '/api/turns',
        headers,
        payload: { thread_id: threadId, input: 'two' },
      });
      expect(second.statusCode).toBe(202);
      await client.waitFor((sse) =>
        sse.events.some((message) => message.event === 'turn/completed' && JSON.parse(message.data).turn.id === second.json().turn_id),
      );
      expect(seqs(client.events)).toEqual(client.events.map((_message, index) => index + 1));
    } finally {
      client.close();
    }
  });
});
