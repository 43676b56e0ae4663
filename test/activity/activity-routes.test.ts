import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { bearer, operatorHeaders, type TestContext } from '../helpers/context.js';
import { billingContext, expectLedgerConsistent, meterRequest, MODEL, newCustomer, principalFor, userKey } from '../billing/helpers.js';
import type { CustomerPrincipal } from '../../src/accounts/principal.js';

describe('activity routes', () => {
  let context: TestContext;
  let upstream: ModelUpstream;
  let url: string;
  beforeEach(async () => {
    upstream = await startModelUpstream();
    context = await billingContext({ upstreamUrl: upstream.url });
    url = await context.listen();
  });
  afterEach(async () => {
    await expectLedgerConsistent(context);
    await context.close();
    await upstream.close();
  });

  const get = (path: string, headers: Record<string, string>) => context.app.inject({ method: 'GET', url: path, headers });

  /** Two calls through the gateway with the official client (one fails upstream) and an agent turn of two calls. */
  async function seed() {
    const buyer = await newCustomer(context, 5_000_000);
    const { key, keyId } = await userKey(context, buyer.customerId);
    const client = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
    upstream.enqueue({ kind: 'text', text: 'first', usage: { inputTokens: 1_000, outputTokens: 100 } });
    await client.chat.completions.create({ model: 'power-ai', messages: [{ role: 'user', content: 'hi' }], max_tokens: 200 });
    upstream.enqueue({ kind: 'http_error', status: 500, body: { error: { message: 'boom' } } });
    await expect(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'again' }] })).rejects.toThrow();
    // An agent turn: two billed model calls of one turn in a project thread (the meter as the gateway calls it).
    await context.storage.db
      .insertInto('projects')
      .values({ id: 'prj_activity', customer_id: buyer.customerId, name: 'Site', workspace_dir: '/tmp/none', created_at: Date.now() })
      .execute();
    await context.storage.db
      .insertInto('agent_project_threads')
      .values({
        project_id: 'prj_activity',
        customer_id: buyer.customerId,
        thread_id: 'thr_a',
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .execute();
    const starter = (await principalFor(context, buyer.systemToken)) as CustomerPrincipal;
    for (const tokens of [200, 300]) {
      const call = await context.services.billing.meter.begin(
        meterRequest({ ...starter, agentTurn: { threadId: 'thr_a', turnId: 'turn_1' } }, { surface: 'projects' }),
      );
      await call.settle({ inputTokens: tokens, outputTokens: 10, source: 'upstream' }, 'completed');
    }
    return { buyer, key, keyId };
  }

  it('lists calls and agent turns newest first with key, models, tokens, cost, latency and outcome; filters and pages', async () => {
    const { buyer, key, keyId } = await seed();
    const answer = await get('/api/v1/activity', bearer(key));
    expect(answer.statusCode, answer.body).toBe(200);
    const { entries, totals, next_before } = answer.json();
    expect(next_before).toBeNull();
    expect(entries.map((entry: { kind: string }) => entry.kind)).toEqual(['agent_turn', 'call', 'call']);
    const [turn, failed, first] = entries;
    expect(turn).toMatchObject({
      id: 'turn_1',
      calls: 2,
      input_tokens: 500,
      output_tokens: 20,
      outcome: 'completed',
      project: { id: 'prj_activity', name: 'Site' },
      key: { id: buyer.systemKeyId, name: 'System Token' },
    });
    // $4/M in, $24/M out: 500 × 4 + 20 × 24 µUSD.
    expect(turn.cost.micros).toBe(2_000 + 480);
    expect(failed).toMatchObject({ requested_model: MODEL, model: MODEL, outcome: 'failed', key: { id: keyId, name: 'test key' } });
    expect(first).toMatchObject({
      requested_model: 'power-ai',
      model: MODEL,
      input_tokens: 1_000,
      output_tokens: 100,
      cost: { micros: 4_000 + 2_400, usd: '0.006400' },
      outcome: 'completed',
      operation: 'chat',
    });
    expect(first.latency_ms).toBeGreaterThanOrEqual(0);
    expect(first.request_id).toMatch(/\S/);
    expect(totals).toEqual({ calls: 4, cost: { micros: 2_480 + 6_400 + failed.cost.micros, usd: expect.any(String) } });

    const only = async (query: string) =>
      (await get(`/api/v1/activity?${query}`, bearer(key))).json().entries.map((e: { id: string }) => e.id);
    expect(await only(`key_id=${keyId}`)).toEqual([failed.id, first.id]);
    expect(await only('model=power-ai')).toEqual([first.id]);
    expect(await only('outcome=failed')).toEqual([failed.id]);
    expect(await only('kind=agent_turn')).toEqual(['turn_1']);
    expect(await only('kind=call&outcome=completed')).toEqual([first.id]);

    const page1 = (await get('/api/v1/activity?limit=2', bearer(key))).json();
    expect(page1.entries.map((e: { id: string }) => e.id)).toEqual(['turn_1', failed.id]);
    const page2 = (await get(`/api/v1/activity?limit=2&before=${page1.next_before}`, bearer(key))).json();
    expect(page2).toMatchObject({ entries: [{ id: first.id }], next_before: null });
  });

  it('exports the same entries as CSV; an operator reads one customer the same way; others see nothing of it', async () => {
    const { buyer, key } = await seed();
    const json = (await get('/api/v1/activity', bearer(key))).json().entries;
    const csv = await get('/api/v1/activity.csv', bearer(key));
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toContain('attachment');
    const [header, ...lines] = csv.body.trimEnd().split('\n');
    expect(header!.split(',')).toEqual(
      expect.arrayContaining(['started_at', 'requested_model', 'model', 'cost_usd', 'latency_ms', 'request_id']),
    );
    const columns = header!.split(',');
    const rows = lines.map((line) => Object.fromEntries(line.split(',').map((value, at) => [columns[at], value])));
    expect(rows.map((row) => row.request_id)).toEqual(json.map((entry: { request_id: string }) => entry.request_id));
    expect(rows.map((row) => row.cost_usd)).toEqual(json.map((entry: { cost: { usd: string } }) => entry.cost.usd));
    expect(rows[0]).toMatchObject({ kind: 'agent_turn', turn_id: 'turn_1', project_id: 'prj_activity', key_name: 'System Token' });

    const admin = await get(`/api/admin/customers/${buyer.customerId}/activity`, operatorHeaders);
    expect(admin.statusCode).toBe(200);
    expect(admin.json().entries).toEqual(json);
    const adminCsv = await get(`/api/admin/customers/${buyer.customerId}/activity.csv?kind=call`, operatorHeaders);
    expect(adminCsv.body.trimEnd().split('\n')).toHaveLength(3);
    expect((await get('/api/admin/customers/999999/activity', operatorHeaders)).statusCode).toBe(404);
    expect((await get(`/api/admin/customers/${buyer.customerId}/activity`, bearer(key))).statusCode).not.toBe(200);

    const stranger = await newCustomer(context);
    expect((await get('/api/v1/activity', bearer(stranger.systemToken))).json()).toMatchObject({ entries: [], totals: { calls: 0 } });
    expect((await get('/api/v1/activity.csv', bearer(stranger.systemToken))).body.trimEnd().split('\n')).toHaveLength(1);
  });

  it('refuses a bad filter with 422 and names the field', async () => {
    const buyer = await newCustomer(context);
    for (const query of ['days=0', 'days=366', 'limit=201', 'outcome=great', 'kind=turn', 'key_id=x', 'before=0']) {
      const answer = await get(`/api/v1/activity?${query}`, bearer(buyer.systemToken));
      expect(answer.statusCode, query).toBe(422);
      expect(answer.json().detail[0].loc, query).toEqual(['query', query.split('=')[0]]);
    }
    expect((await get('/api/v1/activity.csv?outcome=great', bearer(buyer.systemToken))).statusCode).toBe(422);
    expect((await get('/api/v1/activity', {})).statusCode).toBe(401);
  });
});
