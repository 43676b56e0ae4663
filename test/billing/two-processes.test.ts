/**
 * PostgreSQL, two service processes sharing one fresh database: 1000 concurrent billed requests split across
 * both against a wallet covering exactly K → exactly K succeed. The second process is `node dist/src/cli.js
 * serve`; the guard is one conditional UPDATE, so neither process can spend what the other holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { freshDatabase, TEST_DATABASE_URL, tempDir } from '../helpers/databases.js';
import type { TestContext } from '../helpers/context.js';
import {
  billingConfig,
  billingContext,
  chat,
  credit,
  expectLedgerConsistent,
  newCustomer,
  probeHold,
  settledWalletOf,
  walletOf,
} from './helpers.js';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from './processes.js';

describe.skipIf(!TEST_DATABASE_URL)('two service processes on one PostgreSQL database', () => {
  let upstream: ModelUpstream;
  let context: TestContext;
  let second: ServiceProcess;
  let dataDir: string;

  beforeAll(async () => {
    ensureBuilt();
    upstream = await startModelUpstream();
    const storage = await freshDatabase('switchyard_billing');
    context = await billingContext({ upstreamUrl: upstream.url, storage });
    await context.listen();
    dataDir = tempDir('switchyard-second-');
    const configPath = path.join(dataDir, 'config.json');
    fs.writeFileSync(configPath, JSON.stringify({ ...billingConfig(upstream.url), rateCards: context.config.rateCards }));
    second = await startServiceProcess({ dataDir, configPath, databaseUrl: storage.location.databaseUrl });
  }, 180_000);

  afterAll(async () => {
    await second?.stop();
    await context?.close();
    await upstream?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('never overspends: exactly K of 1000 requests across both processes succeed', async () => {
    const buyer = await newCustomer(context, 1_000_000);
    const hold = await probeHold(context, upstream, context.url!, buyer.systemToken, buyer.customerId);
    const K = 97;
    await credit(context, buyer.customerId, K * hold - (await walletOf(context, buyer.customerId)).balanceMicros);
    const urls = [context.url!, second.url];
    const responses = await Promise.all(Array.from({ length: 1000 }, (_, index) => chat(urls[index % 2]!, buyer.systemToken)));
    await Promise.all(responses.map((response) => response.text()));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(K);
    expect(statuses.filter((status) => status === 402)).toHaveLength(1000 - K);
    const perProcess = [0, 1].map((parity) => statuses.filter((status, index) => index % 2 === parity && status === 200).length);
    expect(perProcess[0]! + perProcess[1]!).toBe(K);
    expect(await settledWalletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 0, holdsMicros: 0, availableMicros: 0 });
    const nodes = await context.storage.db.selectFrom('billing_calls').select('node_id').distinct().execute();
    expect(nodes.length).toBe(2);
    await expectLedgerConsistent(context);
  });
});
