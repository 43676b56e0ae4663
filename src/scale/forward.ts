/**
 * Forwarding a request to the node holding the customer's lease. The request goes on as it came (method, path,
 * query, headers including the caller's own credentials, body streamed), so the holder authenticates and
 * authorizes it exactly as if it had been sent there; the answer, streams included, comes back unchanged.
 * A signed hop header (HMAC under a key derived from the shared server secret) marks the request as forwarded:
 * the holder then serves it itself or answers 503, never forwards it again (no loops).
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent, request as undiciRequest } from 'undici';

export const FORWARDED_HEADER = 'x-switchyard-forwarded';
const SIGNATURE_MAX_AGE_MS = 60_000;
/** Headers of one connection, not of the request or its answer. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
  FORWARDED_HEADER,
]);

export class HopSigner {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = Buffer.from(hkdfSync('sha256', serverSecret, 'switchyard-scale-out', 'forward', 32));
  }

  /** `clientIp`: the address the request came from at the first node (the holder records it, not the node's). */
  sign(node: string, method: string, url: string, clientIp: string, nowMs: number): string {
    return `${node};${nowMs};${encodeURIComponent(clientIp)};${this.mac(node, nowMs, method, url, clientIp)}`;
  }

  /** The forwarding node and client address when the header is authentic and fresh; null otherwise (the header is then ignored). */
  verify(header: string | string[] | undefined, method: string, url: string, nowMs: number): { node: string; clientIp: string } | null {
    if (typeof header !== 'string') return null;
    const [node, at, ip, mac] = header.split(';');
    const atMs = Number(at);
    if (!node || ip === undefined || !mac || !Number.isSafeInteger(atMs) || Math.abs(nowMs - atMs) > SIGNATURE_MAX_AGE_MS) return null;
    let clientIp: string;
    try {
      clientIp = decodeURIComponent(ip);
    } catch {
      return null;
    }
    const expected = Buffer.from(this.mac(node, atMs, method, url, clientIp));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given) ? { node, clientIp } : null;
  }

  private mac(node: string, atMs: number, method: string, url: string, clientIp: string): string {
    return createHmac('sha256', this.key).update(`${node}\n${atMs}\n${method}\n${url}\n${clientIp}`).digest('base64url');
  }
}

export interface ForwardedAnswer {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Readable;
}

export interface ForwardOptions {
  /** The first node's request id (the holder keeps it). */
  requestId: string;
  /** The address the request came from at the first node. */
  clientIp: string;
  nowMs: number;
  signal: AbortSignal;
  /** Set on the forwarded request over what the client sent (`traceparent`, `x-client-request-id`). */
  headers?: Record<string, string>;
}

export class Forwarder {
  private readonly agent: Agent;

  constructor(
    private readonly signer: HopSigner,
    private readonly nodeId: string,
    timeoutMs: number,
  ) {
    // Streams (SSE, long turns) may stay open: no body timeout; connect and headers are bounded.
    this.agent = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: 0, keepAliveTimeout: 10_000 });
  }

  /** Sends the raw request on to `baseUrl`; rejects when the holder cannot be reached. */
  async forward(baseUrl: string, raw: IncomingMessage, options: ForwardOptions): Promise<ForwardedAnswer> {
    const { requestId, clientIp, nowMs, signal } = options;
    const method = raw.method ?? 'GET';
    const url = raw.url ?? '/';
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(raw.headers as IncomingHttpHeaders)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers[FORWARDED_HEADER] = this.signer.sign(this.nodeId, method, url, clientIp, nowMs);
    // One request id on both nodes' logs; the caller's additions (trace context, the client's own id) last.
    headers['x-request-id'] = requestId;
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name] = value;
    const hasBody =
      method !== 'GET' &&
      method !== 'HEAD' &&
      (raw.headers['content-length'] !== undefined || raw.headers['transfer-encoding'] !== undefined);
    const answer = await undiciRequest(new URL(url, baseUrl), {
      method: method as 'GET',
      headers,
      body: hasBody ? raw : undefined,
      dispatcher: this.agent,
      signal,
    });
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
    }
    return { statusCode: answer.statusCode, headers: out, body: answer.body };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
