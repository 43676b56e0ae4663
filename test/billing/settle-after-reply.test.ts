/**
 * A billed call's answer does not wait for its settlement: with settlements held back by the wallet's gate, the
 * official client reads a complete JSON answer and a complete stream while the call is still open; released, the
 * settlement lands exactly once. A process that answered and died before its settlement committed is settled from
 * its journal by the process that finds it gone, once, at the usage the upstream reported.
 */
import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import type { TestContext } from '../helpers/context.js';
import { billingContext, expectLedgerConsistent, newCustomer, walletOf } from './helpers.js';

/** A gate that holds every settlement until opened. */
function heldGate(): { wait: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { wait: () => opened, open };
}

async function callRow(context: TestContext, requestId: string) {
  return context.storage.db.selectFrom('billing_calls').selectAll().where('request_id', '=', requestId).executeTakeFirstOrThrow();
}

async function usageEntries(context: TestContext, callId: number) {
  return context.storage.db
    .selectFrom('ledger_entries')
    .select(['amount_micros', 'transfer_id'])
    .where('reference', '=', `call:${callId}`)
    .execute();
}

function journalLines(context: TestContext): string[] {
  const directory = path.join(context.dataDir, 'settlement-journal');
  if (!fs.existsSync(directory)) return [];
  return fs.readdirSync(directory).flatMap((name) => fs.readFileSync(path.join(directory, name), 'utf8').split('\n').filter(Boolean));
}

describe('answers before settlement', () => {
  let upstream: ModelUpstream;
  let context: TestContext;
  let client: OpenAI;
  let customerId: number;

  beforeAll(async () => {
    upstream = await startModelUpstream({
      defaultReply: { kind: 'text', text: 'one two three', usage: { inputTokens: 100, outputTokens: 10 } },
    });
    context = await billingContext({ upstreamUrl: upstream.url });
    const url = await context.listen();
    const buyer = await newCustomer(context, 1_000_000);
    customerId = buyer.customerId;
    client = new OpenAI({ baseURL: `${url}/v1`, apiKey: buyer.systemToken, maxRetries: 0 });
  });

  afterAll(async () => {
    await context?.close();
    await upstream?.close();
  });

  it('a JSON answer is complete while its settlement is held, and the settlement then lands once', async () => {
    const gate = heldGate();
    context.services.billing.wallet.settlementGate = gate.wait;
    try {
      const { data: completion, response } = await client.chat.completions
        .create({ model: 'power-ai', messages: [{ role: 'user', content: 'count' }], max_tokens: 50 })
        .withResponse();
      expect(completion.choices[0]!.message.content).toBe('one two three');
      const requestId = response.headers.get('x-request-id')!;
      const open = await callRow(context, requestId);
      expect(open.status).toBe('open');
      expect(journalLines(context).map((line) => JSON.parse(line).callId)).toContain(open.id);

      gate.open();
      await context.services.billing.wallet.settled();
      const settled = await callRow(context, requestId);
      // 100 input tokens at $4/M and 10 output tokens at $24/M.
      expect(settled).toMatchObject({ status: 'settled', outcome: 'completed', input_tokens: 100, output_tokens: 10 });
      expect(Number(settled.cost_micros)).toBe(400 + 240);
      const entries = await usageEntries(context, settled.id);
      expect(entries.map((entry) => Number(entry.amount_micros)).sort((a, b) => a - b)).toEqual([-640, 640]);
      expect(new Set(entries.map((entry) => entry.transfer_id)).size).toBe(1);
      // What the journal still holds are settled calls only: a replay would change nothing.
      const journaled = journalLines(context).map((line) => JSON.parse(line).callId as number);
      const statuses = await context.storage.db.selectFrom('billing_calls').select('status').where('id', 'in', journaled).execute();
      expect(statuses.map((row) => row.status)).toEqual(['settled']);
    } finally {
      context.services.billing.wallet.settlementGate = null;
      gate.open();
    }
    await expectLedgerConsistent(context);
  });

  it('a stream reaches its end while its settlement is held, and the settlement then lands once', async () => {
    const before = await walletOf(context, customerId);
    const gate = heldGate();
    context.services.billing.wallet.settlementGate = gate.wait;
    let text = '';
    let sawUsage = false;
    try {
      const stream = await client.chat.completions.create({
        model: 'power-ai',
        messages: [{ role: 'user', content: 'count' }],
        max_tokens: 50,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) sawUsage = true;
      }
      expect(text).toBe('one two three');
      expect(sawUsage).toBe(true);
      const open = await context.storage.db.selectFrom('billing_calls').select(['id', 'status']).where('status', '=', 'open').execute();
      expect(open).toHaveLength(1);

      gate.open();
      const after = await walletOf(context, customerId);
      expect(before.balanceMicros - after.balanceMicros).toBe(640);
      expect(after.holdsMicros).toBe(0);
      const settled = await context.storage.db
        .selectFrom('billing_calls')
        .selectAll()
        .where('id', '=', open[0]!.id)
        .executeTakeFirstOrThrow();
      expect(settled).toMatchObject({ status: 'settled', outcome: 'completed' });
      expect(await usageEntries(context, settled.id)).toHaveLength(2);
    } finally {
      context.services.billing.wallet.settlementGate = null;
      gate.open();
    }
    await expectLedgerConsistent(context);
  });
});

describe('a process that answered and died before its settlement committed', () => {
  let upstream: ModelUpstream;
  afterAll(async () => upstream?.close());

  it('is settled once from its journal by the process that finds it gone', async () => {
    upstream = await startModelUpstream({
      defaultReply: { kind: 'text', text: 'journaled answer', usage: { inputTokens: 200, outputTokens: 20 } },
    });
    const first = await billingContext({ upstreamUrl: upstream.url });
    const url = await first.listen();
    const buyer = await newCustomer(first, 1_000_000);
    const before = await walletOf(first, buyer.customerId);
    // The first process never gets to settle: its settlements wait on a gate that opens only after its successor acted.
    const gate = heldGate();
    first.services.billing.wallet.settlementGate = gate.wait;
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: buyer.systemToken, maxRetries: 0 });
    const { data: completion, response } = await client.chat.completions
      .create({ model: 'power-ai', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(completion.choices[0]!.message.content).toBe('journaled answer');
    const requestId = response.headers.get('x-request-id')!;
    expect((await callRow(first, requestId)).status).toBe('open');

    // Its successor shares the database and the data directory; the first's heartbeat has stopped.
    const second = await billingContext({ upstreamUrl: upstream.url, storage: first.storage, env: { SWITCHYARD_DATA_DIR: first.dataDir } });
    try {
      await first.storage.db
        .updateTable('billing_nodes')
        .set({ heartbeat_at: 0 })
        .where('node_id', '=', first.services.billing.wallet.nodeId)
        .execute();
      expect(await second.services.billing.sweep()).toBe(0);
      const settled = await callRow(second, requestId);
      // 200 input tokens at $4/M and 20 output tokens at $24/M, from the journal and the rates on the hold.
      expect(settled).toMatchObject({ status: 'settled', outcome: 'completed', input_tokens: 200, output_tokens: 20 });
      expect(Number(settled.cost_micros)).toBe(800 + 480);
      expect(journalLines(second)).toEqual([]);
      const charged = await walletOf(second, buyer.customerId);
      expect(before.balanceMicros - charged.balanceMicros).toBe(1_280);
      expect(charged.holdsMicros).toBe(0);

      // The first process's own settlement, late, changes nothing: charged exactly once.
      first.services.billing.wallet.settlementGate = null;
      gate.open();
      await first.services.billing.wallet.settled();
      expect(await usageEntries(second, settled.id)).toHaveLength(2);
      expect((await walletOf(second, buyer.customerId)).balanceMicros).toBe(charged.balanceMicros);
      expect(first.logs.join('')).toContain('already settled elsewhere');
      await expectLedgerConsistent(second);
    } finally {
      gate.open();
      await second.app.close();
      await second.services.close().catch(() => undefined);
      await first.close();
    }
  });
});
