/**
 * Graceful drain: a built service process receiving SIGTERM finishes the model stream it is serving and exits 0;
 * readiness answers 503 while draining; project event streams end with a `reconnect` frame naming their cursor.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { billingConfig, billingContext } from '../billing/helpers.js';
import { ensureBuilt, startServiceProcess } from '../billing/processes.js';
import { createTestContext, STATIC_TOKEN } from '../helpers/context.js';
import { tempDir } from '../helpers/databases.js';
import { solvedHumanCheckAt } from '../helpers/human-check.js';

let upstream: ModelUpstream;
beforeAll(async () => {
  ensureBuilt();
  upstream = await startModelUpstream();
}, 180_000);
afterAll(async () => upstream?.close());

describe('readiness', () => {
  it('answers ready with the database and migrations checked, and 503 with Retry-After once draining', async () => {
    const context = await createTestContext();
    try {
      const ready = await context.app.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode, ready.body).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready', database: context.storage.dialect, migrations: 'current' });
      expect((await context.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);

      context.app.drain.begin();
      for (const url of ['/health/ready', '/readyz']) {
        const draining = await context.app.inject({ method: 'GET', url });
        expect(draining.statusCode, url).toBe(503);
        expect(Number(draining.headers['retry-after'])).toBeGreaterThan(0);
      }
      // Liveness is unaffected: a draining node must not be restarted for it.
      expect((await context.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await context.close();
    }
  });

  it('is not ready while a migration is missing', async () => {
    const context = await createTestContext();
    try {
      const [latest] = (await context.storage.db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .orderBy('name' as never, 'desc')
        .limit(1)
        .execute()) as Array<{ name: string }>;
      await context.storage.db
        .deleteFrom('kysely_migration' as never)
        .where('name' as never, '=', latest!.name as never)
        .execute();
      const response = await context.app.inject({ method: 'GET', url: '/health/ready' });
      expect(response.statusCode).toBe(503);
      expect(response.body).toContain(latest!.name);
    } finally {
      await context.close();
    }
  });
});

describe('project event streams on drain', () => {
  it('end with a reconnect frame that names the last event id written', async () => {
    const context = await billingContext();
    try {
      const sink = new PassThrough();
      const chunks: string[] = [];
      sink.on('data', (chunk) => chunks.push(String(chunk)));
      const customer = await context.services.customers.create({ email: `drain-${Date.now()}@example.com` });
      const projectId = await context.services.direct.stream(customer.customer.id);
      await context.services.projectEvents.append(projectId, 'note', { n: 1 });
      const streaming = context.services.projectEvents.stream({ projectId, after: 0, sink });
      await expect.poll(() => chunks.join('')).toContain('event: note');
      context.services.projectEvents.endStreams('draining');
      await streaming;
      const text = chunks.join('');
      const seq = /id: (\d+)\nevent: note/.exec(text)![1];
      expect(text.endsWith(`event: reconnect\nretry: 1000\ndata: {"last_event_id":${seq},"reason":"draining"}\n\n`)).toBe(true);
    } finally {
      await context.close();
    }
  });
});

describe('SIGTERM', () => {
  it('ends event streams with a reconnect frame, lets an open model stream finish, then exits 0', async () => {
    const dataDir = tempDir('switchyard-drain-');
    const configPath = path.join(dataDir, 'config.json');
    const rateCards = {
      standard: { inputMicrosPerMillion: 4_000_000, outputMicrosPerMillion: 24_000_000 },
      'heavy-load': { inputMicrosPerMillion: 6_000_000, outputMicrosPerMillion: 32_000_000 },
    };
    fs.writeFileSync(
      configPath,
      JSON.stringify({
        ...billingConfig(upstream.url),
        rateCards,
        regions: [],
        accounts: { registration: 'open' },
        server: { drainTimeoutMs: 60_000 },
      }),
    );
    const service = await startServiceProcess({ dataDir, configPath });
    try {
      // A customer's direct event stream (SSE) is open too: it must end with a reconnect frame.
      const registered = await fetch(`${service.url}/api/v1/customer/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: `drain-${Date.now()}@example.com`,
          password: 'a long enough password',
          humanCheck: await solvedHumanCheckAt(service.url),
        }),
      });
      expect(registered.status, await registered.clone().text()).toBe(201);
      const customerId = ((await registered.json()) as { customer: { id: number } }).customer.id;
      const events = await fetch(`${service.url}/api/rpc/events?customer_id=${customerId}`, {
        headers: { authorization: `Bearer ${STATIC_TOKEN}` },
      });
      expect(events.status).toBe(200);
      const eventsReader = events.body!.getReader();
      let eventsText = '';
      while (!eventsText.includes(': connected')) {
        const { value, done } = await eventsReader.read();
        if (done) break;
        eventsText += new TextDecoder().decode(value);
      }
      const eventsEnded = (async () => {
        for (;;) {
          const { value, done } = await eventsReader.read();
          if (done) return eventsText;
          eventsText += new TextDecoder().decode(value);
        }
      })();

      const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
      upstream.enqueue({
        kind: 'text',
        text: words.join(' '),
        chunks: words.length,
        chunkDelayMs: 400,
        usage: { inputTokens: 10, outputTokens: 6 },
      });
      const response = await fetch(`${service.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${STATIC_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'power-ai', messages: [{ role: 'user', content: 'Spell.' }], stream: true }),
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      // The stream is open (its first content arrived) when the signal comes.
      while (!text.includes('alpha')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      expect(text).toContain('alpha');
      const exitCode = new Promise<number | null>((resolve) => service.child.once('exit', (code) => resolve(code)));
      service.child.kill('SIGTERM');
      // New connections are refused while the open stream finishes.
      await expect
        .poll(
          () =>
            fetch(`${service.url}/healthz`).then(
              () => 'accepted',
              () => 'refused',
            ),
          { timeout: 10_000 },
        )
        .toBe('refused');
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      const content = [...text.matchAll(/"content":"([^"]*)"/g)].map((match) => match[1]).join('');
      expect(content).toBe(words.join(' '));
      expect(text).toContain('data: [DONE]');
      expect(await eventsEnded).toContain('event: reconnect\nretry: 1000\ndata: {"last_event_id":null,"reason":"draining"}\n\n');
      expect(await exitCode, service.output.join('')).toBe(0);
    } finally {
      await service.kill();
    }
  }, 120_000);
});
