/**
 * SSE clients in a worker thread for the events bench: `count` readers of one project's events, each recording
 * per `bench` frame the time since the event's `sentAt` (process.hrtime, the same clock in every thread of the
 * process). Off the service's event loop, so the figure is the service's fan-out, not the clients' own parsing.
 * Messages: posts `ready` once every client is connected; answers `collect` (with how many frames each client
 * should have, and a timeout) with the latencies and closes the clients.
 */
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { createParser } from 'eventsource-parser';

interface Options {
  url: string;
  token: string;
  count: number;
}

export function hrNowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

function subscribe(url: string, token: string, latencies: number[]): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`events: ${response.statusCode}`));
      const parser = createParser({
        onEvent: (event) => {
          if (event.event === 'bench') latencies.push(hrNowMs() - (JSON.parse(event.data) as { sentAt: number }).sentAt);
        },
      });
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => parser.feed(chunk));
      resolve(() => request.destroy());
    });
    request.on('error', reject);
  });
}

async function main(options: Options): Promise<void> {
  const clients: { latencies: number[]; close: () => void }[] = [];
  // Connected in waves of 100: a thousand at once would overflow the loopback accept queue.
  for (let start = 0; start < options.count; start += 100) {
    const wave = await Promise.all(
      Array.from({ length: Math.min(100, options.count - start) }, async () => {
        const latencies: number[] = [];
        return { latencies, close: await subscribe(options.url, options.token, latencies) };
      }),
    );
    clients.push(...wave);
  }
  parentPort!.postMessage({ type: 'ready' });
  parentPort!.on('message', async (message: { type: 'collect'; frames: number; timeoutMs: number }) => {
    if (message.type !== 'collect') return;
    const deadline = Date.now() + message.timeoutMs;
    while (clients.some((client) => client.latencies.length < message.frames) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const client of clients) client.close();
    parentPort!.postMessage({ type: 'latencies', latencies: clients.flatMap((client) => client.latencies) });
  });
}

if (parentPort && workerData) void main(workerData as Options);
