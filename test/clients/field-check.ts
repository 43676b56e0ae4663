/**
 * The check behind the client field tests: what a client sent (recorded at its own `fetch`) against what the scripted
 * upstream received, by the field-fate table for translated calls and field by field for calls of the caller's own
 * protocol. Cache marks are counted message by message.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FIELD_FATES, type InboundName, type TranslatedKind } from '../../src/gateway/normalized/field-fates.js';

export interface Exchange {
  path: string;
  body: Record<string, unknown>;
  droppedFields: string[];
}

/** A `fetch` for a client's options that records each JSON body it sends and the dropped-fields header it gets back. */
export function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const response = await fetch(input, init);
    if (typeof init?.body === 'string') {
      const header = response.headers.get('x-switchyard-dropped-fields');
      exchanges.push({
        path: new URL(url).pathname,
        body: JSON.parse(init.body) as Record<string, unknown>,
        droppedFields: header ? header.split(', ') : [],
      });
    }
    return response;
  };
}

/** The destination kinds: a chat-only OpenAI-kind model, a Responses-capable one, an Anthropic-kind one. */
export type Kind = 'openai' | 'openai-responses' | 'anthropic';

export const KIND_OF: Record<Kind, TranslatedKind> = { openai: 'openai-chat', 'openai-responses': 'openai-chat', anthropic: 'anthropic' };
export const PROTOCOL_OF_PATH: Record<string, InboundName> = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/messages': 'messages',
};
/** The inbound protocol each destination kind takes as sent. */
export const NATIVE: Record<Kind, InboundName[]> = { openai: ['chat'], 'openai-responses': ['chat', 'responses'], anthropic: ['messages'] };

export function valueAt(body: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], body);
}

/** Cache marks anywhere in the conversation: system blocks, messages, their content parts, tools. */
export function cacheMarks(body: Record<string, unknown>): number {
  let count = 0;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'cache_control' && inner) count += 1;
      else visit(inner);
    }
  };
  for (const field of ['system', 'messages', 'input', 'tools']) visit(body[field]);
  return count;
}

/** The table's fate of each top-level field, member by member for fields it lists by member (`text.format`). */
export function fatesOf(protocol: InboundName, body: Record<string, unknown>, kind: TranslatedKind): { field: string; fate: unknown }[] {
  const table = new Map(FIELD_FATES[protocol].map((entry) => [entry.field, entry.fates[kind]]));
  const listed = (field: string): boolean => [...table.keys()].some((key) => key.startsWith(`${field}.`));
  return Object.entries(body).flatMap(([field, value]) =>
    listed(field) && value && typeof value === 'object' && !Array.isArray(value)
      ? Object.keys(value).map((member) => ({ field: `${field}.${member}`, fate: table.get(`${field}.${member}`) }))
      : [{ field, fate: table.get(field) }],
  );
}

/** Served by the gateway on a same-protocol call (stored completions), not sent upstream. */
export const SERVED_IN_PASSTHROUGH = new Set(['store']);

/** Each field the client sent that neither reaches the upstream (under its mapped name) nor is named as dropped. */
export function lostFields(exchange: Exchange, received: Record<string, unknown>, kind: Kind): string[] {
  const protocol = PROTOCOL_OF_PATH[exchange.path]!;
  const named = new Set(exchange.droppedFields);
  const lost: string[] = [];
  if (NATIVE[kind].includes(protocol)) {
    for (const [field, value] of Object.entries(exchange.body)) {
      if (field === 'model' || named.has(field) || SERVED_IN_PASSTHROUGH.has(field)) continue;
      if (JSON.stringify(received[field]) !== JSON.stringify(value)) lost.push(field);
    }
  } else {
    for (const { field, fate } of fatesOf(protocol, exchange.body, KIND_OF[kind])) {
      if (named.has(field) || fate === 'gateway') continue;
      if (typeof fate !== 'string' || valueAt(received, fate) === undefined) lost.push(field);
    }
  }
  if (cacheMarks(received) < cacheMarks(exchange.body) && !named.has('cache_control')) lost.push('cache_control');
  return lost;
}

/**
 * A proxy in front of the gateway that records what a client sent, for clients whose own `fetch` cannot be reached
 * (a CLI). Streams are relayed as they come.
 */
export async function startRecordingProxy(target: string, exchanges: Exchange[]): Promise<{ url: string; close(): Promise<void> }> {
  const forward = recordingFetch(exchanges);
  const proxy = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)),
      ) as Record<string, string>;
      const body = chunks.length > 0 ? Buffer.concat(chunks).toString() : undefined;
      try {
        const answer = await forward(`${target}${request.url}`, { method: request.method, headers, body });
        const relayed = Object.fromEntries(
          [...answer.headers].filter(([name]) => !['content-length', 'content-encoding', 'transfer-encoding'].includes(name)),
        );
        response.writeHead(answer.status, relayed);
        if (answer.body) for await (const chunk of answer.body) response.write(chunk);
        response.end();
      } catch {
        response.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}
