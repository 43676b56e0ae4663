/**
 * SSE clients in a worker thread for the events and agent benches: `count` readers of one project's events, each
 * recording per frame of the given `types` the time since the event's `sentAt` (process.hrtime, the same clock in
 * every thread of the process). Off the service's event loop, so the figure is the service's fan-out, not the
 * clients' own parsing. Messages: posts `ready` once every client is connected; answers `collect` (with how many
 * frames each client should have, and a timeout) with the latencies by event type and closes the clients.
 */
import http from 'node:http';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { createParser } from 'eventsource-parser';

export interface SseClientOptions {
  url: string;
  token: string;
  count: number;
  types: string[];
}

type Latencies = Record<string, number[]>;

export function hrNowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

function subscribe(url: string, token: string, types: string[], latencies: Latencies, counted: { frames: number }): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`events: ${response.statusCode}`));
      const parser = createParser({
        onEvent: (event) => {
          if (event.event === undefined || !types.includes(event.event)) return;
          (latencies[event.event] ??= []).push(hrNowMs() - (JSON.parse(event.data) as { sentAt: number }).sentAt);
          counted.frames += 1;
        },
      });
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => parser.feed(chunk));
      resolve(() => request.destroy());
    });
    request.on('error', reject);
  });
}

async function main(options: SseClientOptions): Promise<void> {
  const clients: { latencies: Latencies; counted: { frames: number }; close: () => void }[] = [];
  // Connected in waves of 100: a thousand at once would overflow the loopback accept queue.
  for (let start = 0; start < options.count; start += 100) {
    const wave = await Promise.all(
      Array.from({ length: Math.min(100, options.count - start) }, async () => {
        const latencies: Latencies = {};
        const counted = { frames: 0 };
        return { latencies, counted, close: await subscribe(options.url, options.token, options.types, latencies, counted) };
      }),
    );
    clients.push(...wave);
  }
  parentPort!.postMessage({ type: 'ready' });
  parentPort!.on('message', async (message: { type: 'collect'; frames: number; timeoutMs: number }) => {
    if (message.type !== 'collect') return;
    const deadline = Date.now() + message.timeoutMs;
    while (clients.some((client) => client.counted.frames < message.frames) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    for (const client of clients) client.close();
    const byType: Latencies = {};
    for (const client of clients) for (const [type, values] of Object.entries(client.latencies)) (byType[type] ??= []).push(...values);
    parentPort!.postMessage({ type: 'latencies', latencies: byType });
  });
}

if (parentPort && workerData) void main(workerData as SseClientOptions);

/** Starts the clients in a worker thread; resolves once all of them are connected. */
export async function workerClients(
  options: SseClientOptions,
): Promise<{ collect(frames: number): Promise<Latencies>; stop(): Promise<void> }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: options });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (message: { type: string }) =>
      message.type === 'ready' ? resolve() : reject(new Error(`unexpected ${message.type}`)),
    );
  });
  return {
    collect: (frames) =>
      new Promise((resolve, reject) => {
        worker.once('error', reject);
        worker.once('message', (message: { latencies: Latencies }) => resolve(message.latencies));
        worker.postMessage({ type: 'collect', frames, timeoutMs: 60_000 });
      }),
    stop: async () => {
      await worker.terminate();
    },
  };
}
