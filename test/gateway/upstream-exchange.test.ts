import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamFailurePart } from '../../src/gateway/providers/shared/stream-failure.js';
import { UpstreamBody, dispatchExchange, jsonReplyParts } from '../../src/gateway/providers/shared/upstream-exchange.js';

describe('upstream body queue', () => {
  function body() {
    const calls = { resumed: 0, aborted: [] as Error[] };
    const queue = new UpstreamBody(
      () => (calls.resumed += 1),
      (reason) => calls.aborted.push(reason),
    );
    return { queue, calls };
  }

  it('pauses the upstream past 64 KiB queued and resumes once reading brings it under half', async () => {
    const { queue, calls } = body();
    const chunk = Buffer.alloc(16 * 1024);
    expect([1, 2, 3].map(() => queue.push(chunk))).toEqual([true, true, true]);
    expect(queue.push(chunk)).toBe(false);
    await queue.next();
    expect(calls.resumed).toBe(0);
    await queue.next();
    await queue.next();
    expect(calls.resumed).toBe(1);
  });

  it('hands a chunk straight to a waiting reader, ends, and reports a failure to a waiting reader', async () => {
    const { queue } = body();
    const first = queue.next();
    queue.push(Buffer.from('a'));
    expect((await first).value?.toString()).toBe('a');
    const second = queue.next();
    queue.fail(new Error('socket hang up'));
    await expect(second).rejects.toThrow('socket hang up');
    const { queue: ending } = body();
    const last = ending.next();
    ending.end();
    expect(await last).toEqual({ value: undefined, done: true });
  });

  it('aborts the exchange when the reader stops before the end, not after it', async () => {
    const { queue, calls } = body();
    queue.push(Buffer.from('partial'));
    await queue.return();
    expect(calls.aborted).toHaveLength(1);
    const { queue: complete, calls: completeCalls } = body();
    complete.push(Buffer.from('all'));
    complete.end();
    await complete.return();
    expect(completeCalls.aborted).toHaveLength(0);
  });

  it('decodes a whole JSON reply into parts, and unreadable JSON into one protocol error part', async () => {
    const { queue } = body();
    queue.push(Buffer.from('{"text":"hi"}'));
    queue.end();
    const parts = [];
    for await (const part of jsonReplyParts(queue, (parsed: { text: string }) => [{ type: 'text-delta' as const, delta: parsed.text }]))
      parts.push(part);
    expect(parts).toEqual([{ type: 'text-delta', delta: 'hi' }]);
    const { queue: truncated } = body();
    truncated.push(Buffer.from('{"id":"partial",'));
    truncated.end();
    const failure = await (async () => {
      for await (const _part of jsonReplyParts(truncated, () => [])) void _part;
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SyntaxError);
    expect(streamFailurePart(failure, new AbortController().signal)).toMatchObject({
      type: 'error',
      error: { failure: 'protocol', status: 502 },
    });
  });

  it('reads text up to a limit and aborts past it', async () => {
    const { queue, calls } = body();
    queue.push(Buffer.from('héllo '));
    queue.push(Buffer.from('world'));
    queue.end();
    expect(await queue.text(1024)).toBe('héllo world');
    const { queue: big, calls: bigCalls } = body();
    big.push(Buffer.alloc(10));
    big.push(Buffer.alloc(10));
    expect((await big.text(15)).length).toBe(10);
    expect(bigCalls.aborted).toHaveLength(1);
    expect(calls.aborted).toHaveLength(0);
  });
});

describe('upstream exchange over a real socket', () => {
  let server: http.Server;
  let pool: Pool;
  const closedEarly: boolean[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      if (request.url === '/endless') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const timer = setInterval(() => response.write('data: tick\n\n'), 5);
        response.on('close', () => {
          clearInterval(timer);
          closedEarly.push(!response.writableFinished);
        });
        return;
      }
      response.setHeader('x-repeated', ['one', 'two']);
      response.writeHead(201, { 'Retry-After': '7' });
      response.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await pool.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('gives status, lower-case headers (repeated ones as arrays) and the body', async () => {
    const response = await dispatchExchange(pool, { method: 'POST', path: '/json', body: '{}' }, new AbortController().signal);
    expect(response.statusCode).toBe(201);
    expect(response.headers['retry-after']).toBe('7');
    expect(response.headers['x-repeated']).toEqual(['one', 'two']);
    expect(await response.body.text(1024)).toBe('{"ok":true}');
  });

  it('closes the upstream request when the signal aborts mid-body, and the reader sees the failure', async () => {
    const controller = new AbortController();
    const response = await dispatchExchange(pool, { method: 'POST', path: '/endless', body: '{}' }, controller.signal);
    const first = await response.body.next();
    expect(first.value?.toString()).toContain('tick');
    controller.abort();
    await expect(
      (async () => {
        for await (const _chunk of response.body);
      })(),
    ).rejects.toThrow();
    await expect.poll(() => closedEarly.length, { timeout: 1000 }).toBeGreaterThan(0);
    expect(closedEarly.at(-1)).toBe(true);
  });

  it('refuses at once when the signal was already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(dispatchExchange(pool, { method: 'POST', path: '/json', body: '{}' }, controller.signal)).rejects.toThrow();
  });
});
