/**
 * Stand-ins for the chat-bot suite: a Bot API double that records every `sendMessage` call (the identity provider
 * is the shared one of test/fakes/identity-provider.ts).
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface BotApiDouble {
  url: string;
  calls: { token: string; method: string; body: { chat_id: string; text: string } }[];
  close(): Promise<void>;
}

/** Answers `POST /bot<token>/<method>` like the Bot API and records the call. */
export async function startBotApi(): Promise<BotApiDouble> {
  const calls: BotApiDouble['calls'] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(request.url ?? '');
      if (!match || request.method !== 'POST') {
        response.writeHead(404, { 'content-type': 'application/json' });
        return response.end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
      }
      calls.push({ token: match[1]!, method: match[2]!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ok: true, result: { message_id: calls.length } }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export { startProvider, throughProvider } from '../fakes/identity-provider.js';
