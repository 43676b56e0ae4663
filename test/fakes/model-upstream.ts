/**
 * The scripted model upstream: a real HTTP server on loopback that speaks OpenAI chat completions, OpenAI
 * Responses and Anthropic messages (streaming and not), replays scripted replies in whichever wire format the
 * request arrived on, and records every request so tests can assert what the gateway sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderReply, type Wire } from './model-upstream-wire.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
  receivedAtMs: number;
  /** True when the client closed the connection before the reply finished. */
  aborted: boolean;
}

export type Reply =
  | {
      kind: 'text';
      text: string;
      usage?: { inputTokens: number; outputTokens: number };
      omitUsage?: boolean;
      chunks?: number;
      chunkDelayMs?: number;
    }
  | { kind: 'tool_call'; name: string; arguments: string; callId?: string; text?: string }
  | { kind: 'custom_tool_call'; name: string; input: string; callId?: string }
  | { kind: 'http_error'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'drop_mid_stream'; text: string; afterChunks: number }
  | { kind: 'error_after_200'; text?: string; message: string }
  | { kind: 'hang' }
  /** Exactly these bytes (an upstream's own body or SSE text), for replies the scripts above cannot shape. */
  | { kind: 'raw'; status?: number; contentType: string; body: string };

export interface ModelUpstream {
  url: string;
  requests: RecordedRequest[];
  enqueue(...replies: Reply[]): void;
  setDefault(responder: (request: RecordedRequest) => Reply | Promise<Reply>): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
}

const DEFAULT_REPLY: Reply = { kind: 'text', text: 'Hello from the scripted model.' };

/** Deterministic vectors: `[characters of the input, 0.5, 0.25, …]`, `dimensions` long (default 3); usage 2 tokens per input. */
function embeddingsReply(body: any): unknown {
  const inputs: unknown[] = Array.isArray(body?.input) && typeof body.input[0] !== 'number' ? body.input : [body?.input];
  const dimensions = typeof body?.dimensions === 'number' ? body.dimensions : 3;
  const data = inputs.map((input, index) => {
    const vector = Array.from({ length: dimensions }, (_, at) => (at === 0 ? String(input).length : 1 / 2 ** at));
    const embedding = body?.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  return { object: 'list', data, model: body?.model, usage: { prompt_tokens: inputs.length * 2, total_tokens: inputs.length * 2 } };
}

function wireOf(path: string): Wire | 'models' | 'count_tokens' | 'embeddings' | undefined {
  const clean = path.split('?', 1)[0]!.replace(/\/+$/, '');
  if (clean.endsWith('/embeddings')) return 'embeddings';
  if (clean.endsWith('/chat/completions')) return 'chat';
  if (clean.endsWith('/responses')) return 'responses';
  if (clean.endsWith('/messages/count_tokens')) return 'count_tokens';
  if (clean.endsWith('/messages')) return 'messages';
  if (clean.endsWith('/models')) return 'models';
  return undefined;
}

function headersOf(request: http.IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** Characters of prompt text the request carries (system, messages or input, tools), for ≈chars/4 usage. */
export function promptChars(body: any): number {
  if (!body || typeof body !== 'object') return 0;
  const parts = [body.system, body.instructions, body.messages, body.input, body.tools];
  let chars = 0;
  for (const part of parts) if (part !== undefined) chars += typeof part === 'string' ? part.length : JSON.stringify(part).length;
  return chars;
}

export async function startModelUpstream(options: { defaultReply?: Reply } = {}): Promise<ModelUpstream> {
  const requests: RecordedRequest[] = [];
  const queue: Reply[] = [];
  let responder: (request: RecordedRequest) => Reply | Promise<Reply> = () => options.defaultReply ?? DEFAULT_REPLY;
  const waiters = new Set<() => void>();
  const openResponses = new Set<http.ServerResponse>();

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: any = undefined;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      const recorded: RecordedRequest = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        headers: headersOf(request),
        body,
        receivedAtMs: Date.now(),
        aborted: false,
      };
      requests.push(recorded);
      openResponses.add(response);
      response.on('close', () => {
        openResponses.delete(response);
        if (!response.writableFinished) recorded.aborted = true;
      });
      for (const wake of waiters) wake();
      void answer(recorded, response).catch(() => response.destroy());
    });
  });

  async function answer(recorded: RecordedRequest, response: http.ServerResponse): Promise<void> {
    const wire = wireOf(recorded.path);
    if (wire === 'models') {
      return sendJson(response, 200, {
        object: 'list',
        data: [{ id: 'scripted-model', object: 'model', created: 0, owned_by: 'scripted' }],
      });
    }
    if (wire === 'count_tokens') return sendJson(response, 200, { input_tokens: Math.ceil(promptChars(recorded.body) / 4) });
    if (wire === 'embeddings') return sendJson(response, 200, embeddingsReply(recorded.body));
    if (wire === undefined || recorded.method !== 'POST') {
      return sendJson(response, 404, { error: { message: `no route ${recorded.method} ${recorded.path}`, type: 'not_found' } });
    }
    const reply = queue.shift() ?? (await responder(recorded));
    await renderReply({ wire, reply, request: recorded, response });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue(...replies) {
      queue.push(...replies);
    },
    setDefault(next) {
      responder = next;
    },
    waitForRequests(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (requests.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(requests.slice());
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} upstream requests, saw ${requests.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const response of openResponses) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}
