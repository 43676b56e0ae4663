/**
 * Crash safety (`npm run test:crash`): a service process on SQLite runs a billing loop (billed chat
 * completions and idempotent wallet credits) and is killed with SIGKILL at random points. After every restart
 * the invariants hold and no hold is left; at the end every acknowledged credit and every acknowledged billed
 * call is in the ledger, and `PRAGMA integrity_check` is ok. SWITCHYARD_CRASH_POINTS sets the number of kills.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../../src/billing/ledger.js';
import { createStorage } from '../../src/storage/database.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { operatorHeaders } from '../helpers/context.js';
import { tempDir } from '../helpers/databases.js';
import { billingConfig, chat } from './helpers.js';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from './processes.js';
import { solvedHumanCheckAt } from '../helpers/human-check.js';

const POINTS = Number(process.env.SWITCHYARD_CRASH_POINTS ?? 60);
const CREDIT_MICROS = 1_000;

interface Acknowledged {
  credits: string[];
  calls: string[];
  /** What each acknowledged credit's answer said, so a lost one names the transfer and the process that answered. */
  answers: Map<string, string>;
}

async function creditWorker(
  service: ServiceProcess,
  customerId: number,
  prefix: string,
  acknowledged: Acknowledged,
  stop: () => boolean,
): Promise<void> {
  for (let index = 0; !stop(); index += 1) {
    const key = `${prefix}-${index}`;
    const response = await fetch(`${service.url}/api/admin/customers/${customerId}/wallet/adjust`, {
      method: 'POST',
      headers: { ...operatorHeaders, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ amount_micros: CREDIT_MICROS, reason: 'crash loop credit' }),
    }).catch(() => null);
    if (!response) return;
    const text = await response.text().catch(() => null);
    if (response.status === 200 && text !== null) {
      acknowledged.credits.push(key);
      acknowledged.answers.set(key, `${service.url} pid ${service.child.pid}: ${text}`);
    }
  }
}

async function callWorker(service: ServiceProcess, apiKey: string, acknowledged: Acknowledged, stop: () => boolean): Promise<void> {
  while (!stop()) {
    const response = await chat(service.url, apiKey).catch(() => null);
    if (!response) return;
    const body = await response.text().catch(() => null);
    if (response.status === 200 && body !== null) acknowledged.calls.push(response.headers.get('x-request-id')!);
  }
}

describe.skipIf(process.env.SWITCHYARD_CRASH_TEST !== '1')('wallet crash safety', () => {
  let upstream: ModelUpstream;
  let dataDir: string;
  let configPath: string;

  beforeAll(async () => {
    ensureBuilt();
    upstream = await startModelUpstream({
      defaultReply: { kind: 'text', text: 'crash loop answer', usage: { inputTokens: 20, outputTokens: 5 } },
    });
    dataDir = tempDir('switchyard-crash-');
    configPath = path.join(dataDir, 'config.json');
    fs.writeFileSync(
      configPath,
      JSON.stringify({
        ...billingConfig(upstream.url),
        rateCards: { standard: { inputMicrosPerMillion: 4_000_000, outputMicrosPerMillion: 24_000_000 } },
        accounts: { registration: 'open' },
      }),
    );
  }, 180_000);

  afterAll(async () => {
    await upstream?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    `kill -9 at ${POINTS} random points loses no acknowledged entry`,
    async () => {
      let service = await startServiceProcess({ dataDir, configPath });
      const registered = await fetch(`${service.url}/api/v1/customer/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: 'crash@example.com',
          password: 'crash loop password',
          humanCheck: await solvedHumanCheckAt(service.url),
        }),
      });
      expect(registered.status).toBe(201);
      const account = (await registered.json()) as { customer: { id: number }; api_key: string };
      const acknowledged: Acknowledged = { credits: [], calls: [], answers: new Map() };
      const funding = await fetch(`${service.url}/api/admin/customers/${account.customer.id}/wallet/adjust`, {
        method: 'POST',
        headers: { ...operatorHeaders, 'content-type': 'application/json', 'idempotency-key': 'funding' },
        body: JSON.stringify({ amount_micros: 1_000_000_000, reason: 'crash loop funding' }),
      });
      expect(funding.status).toBe(200);

      let reservedCalls = 0;
      for (let point = 0; point < POINTS; point += 1) {
        let stopped = false;
        const stop = () => stopped;
        const workers = [
          ...[0, 1].map((worker) => creditWorker(service, account.customer.id, `p${point}-w${worker}`, acknowledged, stop)),
          ...Array.from({ length: 6 }, () => callWorker(service, account.api_key, acknowledged, stop)),
        ];
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 600));
        // How many of its calls took their hold from a credit reservation (the busy wallet gets one), read before the kill.
        const metrics = await fetch(`${service.url}/metrics`, { headers: operatorHeaders })
          .then((response) => response.text())
          .catch(() => '');
        reservedCalls += Number(/^switchyard_reserved_calls_total (\d+)/m.exec(metrics)?.[1] ?? 0);
        await service.kill();
        stopped = true;
        await Promise.all(workers);
        service = await startServiceProcess({ dataDir, configPath });
        const invariants = await fetch(`${service.url}/api/admin/billing/invariants`, { headers: operatorHeaders });
        const report = (await invariants.json()) as { ok: boolean };
        expect(report, `after kill ${point + 1}`).toMatchObject({
          ok: true,
          badHolds: [],
          mismatchedAccounts: [],
          unbalancedTransfers: [],
        });
      }
      await service.stop();
      console.info(
        `crash loop: ${POINTS} kills, ${acknowledged.credits.length} acknowledged credits, ${acknowledged.calls.length} acknowledged billed calls, ${reservedCalls} of them (at least) drawn from credit reservations`,
      );
      expect(reservedCalls, 'calls drew their holds from credit reservations').toBeGreaterThan(0);

      const sqlitePath = path.join(dataDir, 'switchyard.sqlite');
      const raw = new SQLite(sqlitePath, { readonly: true });
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
      raw.close();
      const storage = await createStorage({ sqlitePath });
      try {
        expect(await checkLedger(storage.db)).toEqual({ mismatchedAccounts: [], unbalancedTransfers: [], badHolds: [] });
        expect(await storage.db.selectFrom('billing_calls').select('id').where('status', '=', 'open').execute()).toEqual([]);
        const references = new Set(
          (await storage.db.selectFrom('ledger_entries').select('reference').where('kind', '=', 'adjustment').execute()).map(
            (row) => row.reference,
          ),
        );
        expect(acknowledged.credits.length).toBeGreaterThan(0);
        const lost = acknowledged.credits.filter((key) => !references.has(`idempotency:${key}`));
        expect(lost.map((key) => `${key} ← ${acknowledged.answers.get(key)}`)).toEqual([]);
        const settled = new Map(
          (await storage.db.selectFrom('billing_calls').select(['request_id', 'status', 'cost_micros']).execute()).map((row) => [
            row.request_id,
            row,
          ]),
        );
        expect(acknowledged.calls.length).toBeGreaterThan(0);
        expect(
          acknowledged.calls.filter(
            (requestId) => settled.get(requestId)?.status !== 'settled' || !(settled.get(requestId)!.cost_micros! > 0),
          ),
        ).toEqual([]);
        const usage = await storage.db
          .selectFrom('ledger_entries')
          .select('id')
          .where('kind', '=', 'usage')
          .where('amount_micros', '<', 0)
          .execute();
        expect(usage.length).toBeGreaterThanOrEqual(acknowledged.calls.length);
      } finally {
        await storage.close();
      }
    },
    120_000 + POINTS * 10_000,
  );
});
