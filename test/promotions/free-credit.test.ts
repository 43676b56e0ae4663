/**
 * Free credit costs an abuser something, and addresses are the client's behind a proxy. Every request goes through
 * a real HTTP proxy in front of the service (it sets X-Forwarded-For to the client it is told to be), with
 * `server.trustProxy` naming the proxy. A five-account farming script gets no free credit without solved
 * challenges and verified emails (read from real mail), and is limited per network after; lockout, key alerts
 * and share-credit visits see the real client.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { solvedHumanCheck } from '../helpers/human-check.js';
import { startSmtp, type Smtp } from '../jobs/support.js';

const CLAIMS = ['/api/v1/spin-wheel/spin', '/api/v1/daily-checkin/claim'] as const;

/** A reverse proxy: forwards to `target`, naming the client from `x-test-client` in X-Forwarded-For. */
async function startProxy(target: string) {
  const upstream = new URL(target);
  const server = http.createServer((request, response) => {
    const headers = { ...request.headers, 'x-forwarded-for': String(request.headers['x-test-client'] ?? '192.0.2.1') };
    delete headers['x-test-client'];
    const forwarded = http.request(
      { host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => response.destroy());
    request.pipe(forwarded);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('free credit and client addresses behind a trusted proxy', () => {
  let context: TestContext;
  let smtp: Smtp;
  let proxy: Awaited<ReturnType<typeof startProxy>>;

  beforeAll(async () => {
    smtp = await startSmtp();
    context = await createTestContext({
      config: {
        server: { trustProxy: ['127.0.0.1'] },
        mail: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false } },
        // Open registration and the promotions a farming script goes after, both switched on explicitly.
        promotions: { checkin: { enabled: true }, spinWheel: { enabled: true }, shareCredit: { enabled: true } },
        accounts: {
          registration: 'open',
          lockout: { maxFailures: 3, perIpFactor: 2, windowMinutes: 15 },
          humanCheck: { requiredFor: ['register', 'promotion'], cost: 1, maxCounter: 64 },
          prefixLimits: { signupsPerDay: 3, promotionClaimsPerDay: 4 },
        },
      } as never,
    });
    proxy = await startProxy(await context.listen());
  });
  afterAll(async () => {
    await proxy?.close();
    await context?.close();
    await smtp?.close();
  });

  /** One request through the proxy as `client`. */
  async function as(client: string, method: string, path: string, options: { body?: unknown; token?: string; cookie?: string } = {}) {
    const headers: Record<string, string> = { 'x-test-client': client };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.cookie) headers.cookie = options.cookie;
    const response = await fetch(`${proxy.url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      redirect: 'manual',
    });
    const text = await response.text();
    return { status: response.status, text, json: () => JSON.parse(text), headers: response.headers };
  }

  const freeCredit = async (customerIds: number[]) => {
    if (customerIds.length === 0) return 0;
    const rows = await context.storage.db
      .selectFrom('promotion_grants')
      .select('amount_micros')
      .where('customer_id', 'in', customerIds)
      .execute();
    return rows.reduce((sum, row) => sum + Number(row.amount_micros), 0);
  };
  const mailTo = async (email: string) => {
    for (let i = 0; i < 500; i++) {
      const mail = smtp.received.find((candidate) => candidate.to && JSON.stringify(candidate.to).includes(email));
      if (mail) return mail;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no mail to ${email}`);
  };

  it('a five-account farming script gets nothing without solved challenges and verified emails, and is limited per network after', async () => {
    const farm = Array.from({ length: 5 }, (_, i) => ({ email: `farm${i}.${Date.now()}@example.test`, password: 'farm password 123' }));
    // 1. No challenge: no account at all.
    for (const account of farm) expect((await as('198.51.100.7', 'POST', '/api/v1/customer/register', { body: account })).status).toBe(422);
    expect(await context.storage.db.selectFrom('customers').select('id').where('email', 'like', 'farm%').execute()).toEqual([]);

    // 2. Solved challenges: three sign-ups from one /24 (three different addresses in it), then 429.
    const created: { customerId: number; token: string; email: string }[] = [];
    for (const [index, account] of farm.entries()) {
      const response = await as(`198.51.100.${10 + index}`, 'POST', '/api/v1/customer/register', {
        body: { ...account, humanCheck: await solvedHumanCheck(context) },
      });
      if (index < 3) {
        expect(response.status, response.text).toBe(201);
        created.push({ customerId: response.json().customer.id, token: response.json().api_key, email: account.email });
      } else {
        expect(response.status, response.text).toBe(429);
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }

    // 3. Unverified accounts: every claim refused, with or without a solved check.
    for (const account of created) {
      for (const claim of CLAIMS) {
        const refused = await as('198.51.100.7', 'POST', claim, {
          token: account.token,
          body: { humanCheck: await solvedHumanCheck(context) },
        });
        expect(refused.status, refused.text).toBe(403);
        expect(refused.json().missing).toBe('email_verification');
      }
    }
    expect(await freeCredit(created.map((account) => account.customerId))).toBe(0);

    // 4. Verified through the real mail's link (once: a second use is refused).
    for (const account of created) {
      const mail = await mailTo(account.email);
      const link = new URL(/https?:\/\/\S+verify-email\?token=[A-Za-z0-9_-]+/.exec(mail.text ?? '')![0]);
      const opened = await as('198.51.100.7', 'GET', `${link.pathname}${link.search}`);
      expect(opened.status).toBe(302);
      expect(opened.headers.get('location')).toBe('/dashboard.html?email_verified=1');
      expect((await as('198.51.100.7', 'GET', `${link.pathname}${link.search}`)).headers.get('location')).toContain('error=');
    }

    // 5. Verified but no challenge: refused. With solved challenges: four claims from the network, then 429.
    expect((await as('198.51.100.7', 'POST', CLAIMS[0], { token: created[0]!.token, body: {} })).status).toBe(422);
    const outcomes: number[] = [];
    for (const account of created) {
      for (const claim of CLAIMS) {
        const response = await as('198.51.100.7', 'POST', claim, {
          token: account.token,
          body: { humanCheck: await solvedHumanCheck(context) },
        });
        outcomes.push(response.status);
      }
    }
    expect(outcomes).toEqual([200, 200, 200, 200, 429, 429]);
    const granted = await freeCredit(created.map((account) => account.customerId));
    expect(granted).toBeGreaterThan(0);
    // At most four grants for the whole network: spin prizes and check-in rewards of the default configuration.
    const grants = await context.storage.db
      .selectFrom('promotion_grants')
      .select('promotion')
      .where(
        'customer_id',
        'in',
        created.map((account) => account.customerId),
      )
      .execute();
    expect(grants).toHaveLength(4);
  });

  it('lockout sees the real client: one client over its limit never locks others, and its correct password is asked for the check, not refused', async () => {
    const owner = { email: `owner.${Date.now()}@example.test`, password: 'owner password 123' };
    expect(
      (await as('203.0.113.50', 'POST', '/api/v1/customer/register', { body: { ...owner, humanCheck: await solvedHumanCheck(context) } }))
        .status,
    ).toBe(201);
    // An attacker tries 10 wrong passwords on 10 accounts (over the per-address limit of 6).
    for (let i = 0; i < 10; i++) {
      const failed = await as('192.0.2.66', 'POST', '/api/v1/auth/web-login', {
        body: { email: `victim${i}@example.test`, password: 'guess' },
      });
      expect([401, 422]).toContain(failed.status);
    }
    // Everyone else signs in as usual.
    expect((await as('203.0.113.51', 'POST', '/api/v1/auth/web-login', { body: owner })).status).toBe(200);
    // The attacker's address is asked for the human check with a correct password, never told 429.
    const asked = await as('192.0.2.66', 'POST', '/api/v1/auth/web-login', { body: owner });
    expect(asked.status, asked.text).toBe(422);
    const solved = await as('192.0.2.66', 'POST', '/api/v1/auth/web-login', {
      body: { ...owner, humanCheck: await solvedHumanCheck(context) },
    });
    expect(solved.status, solved.text).toBe(200);
  });

  it('key alerts and share-credit visits see the real client', async () => {
    const email = `sharer.${Date.now()}@example.test`;
    const registered = await as('100.64.1.5', 'POST', '/api/v1/customer/register', {
      body: { email, password: 'sharer password 1', humanCheck: await solvedHumanCheck(context) },
    });
    const { api_key: token, customer } = registered.json();
    // First network, then a new one: one new-network alert naming the second client's network.
    expect((await as('100.64.1.5', 'GET', '/api/v1/me', { token })).status).toBe(200);
    expect((await as('100.64.9.5', 'GET', '/api/v1/me', { token })).status).toBe(200);
    let alerts: { cause: string; details: { network?: string } }[] = [];
    for (let i = 0; i < 100; i++) {
      alerts = (await as('100.64.1.5', 'GET', '/api/v1/me/api-key-alerts', { token })).json().data;
      if (alerts.some((alert) => alert.cause === 'new_network')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const networks = alerts.filter((alert) => alert.cause === 'new_network').map((alert) => alert.details.network);
    expect(networks).toEqual(['100.64.9.0/24']);

    const status = (await as('100.64.1.5', 'GET', '/api/v1/share-credit', { token })).json();
    const link = new URL(status.share_link);
    // The owner's own visit, and a second address of the owner's network, do not count.
    const own = await as('100.64.1.5', 'GET', link.pathname);
    const browser = /sy_visitor=([^;]+)/.exec(own.headers.get('set-cookie') ?? '')![1]!;
    await as('100.64.1.77', 'GET', link.pathname);
    expect(
      (await as('100.64.1.5', 'GET', '/api/v1/share-credit', { token, cookie: `sy_visitor=${browser}` })).json().visits_by_others,
    ).toBe(0);
    // The owner's browser from another network does not count either (it is remembered as the owner's).
    await as('100.64.200.1', 'GET', link.pathname, { cookie: `sy_visitor=${browser}` });
    expect(
      (await as('100.64.1.5', 'GET', '/api/v1/share-credit', { token, cookie: `sy_visitor=${browser}` })).json().visits_by_others,
    ).toBe(0);
    // Someone else, twice from one network and a second browser there: one visit.
    await as('100.70.3.3', 'GET', link.pathname);
    await as('100.70.3.4', 'GET', link.pathname);
    expect((await as('100.64.1.5', 'GET', '/api/v1/share-credit', { token })).json()).toMatchObject({
      visits_by_others: 1,
      claimable: true,
    });
    expect(customer.id).toBeGreaterThan(0);
  });
});
