/**
 * The egress proxy of the agent sandboxes: the only way out of a sandbox's network namespace besides the model
 * provider. It speaks HTTP CONNECT (tunnels, for https and anything else) and plain-HTTP forwarding (absolute
 * URIs), on connections the service hands it from a customer's Unix socket (`handle`), never on a port of its
 * own. A destination passes only when its host name is on the operator's allow-list (`example.org` exactly,
 * `*.example.org` for its sub-domains; IP literals never) and every address it resolves to is public
 * (`blockedAddress`), or when the operator maps the name to an address (`hosts`), which is then used as given.
 * The connection goes to exactly the checked address, so a second DNS answer cannot redirect it. Refusals are a
 * 403 with a one-line reason, and are logged.
 */
import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import type { Logger } from 'pino';
import { blockedAddress } from './address-policy.js';

export interface EgressPolicy {
  /** Host names the sandboxes may reach (`example.org`, `*.example.org`). */
  allowedDomains: readonly string[];
  /** Host name → the address to connect to instead of resolving it (operator-chosen, exempt from the address policy). */
  hosts: Readonly<Record<string, string>>;
}

export type EgressResolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: EgressResolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** How long a destination gets to accept the connection. */
const CONNECT_TIMEOUT_MS = 10_000;
/** A tunnel or forwarded request idle this long is closed. */
const IDLE_TIMEOUT_MS = 5 * 60_000;
/** Hop-by-hop headers, never forwarded. */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export class EgressRefused extends Error {}

/** The host name, lower-case, without a trailing dot or IPv6 brackets. */
function normalHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

export function domainAllowed(host: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => {
    const pattern = normalHost(entry);
    if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
    return host === pattern;
  });
}

/** Where a connection to `host` may go, or why not (an `EgressRefused`). */
export async function egressTarget(rawHost: string, policy: EgressPolicy, resolve: EgressResolver = systemResolver): Promise<string> {
  const host = normalHost(rawHost);
  if (host === '' || net.isIP(host) !== 0) throw new EgressRefused(`${rawHost || 'an empty host'}: only host names on the allow-list`);
  if (!domainAllowed(host, policy.allowedDomains)) throw new EgressRefused(`${host} is not on the egress allow-list`);
  const mapped = Object.entries(policy.hosts).find(([name]) => normalHost(name) === host)?.[1];
  if (mapped !== undefined) return mapped;
  let addresses: { address: string }[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new EgressRefused(`${host} does not resolve`);
  }
  if (addresses.length === 0) throw new EgressRefused(`${host} does not resolve`);
  for (const { address } of addresses) {
    const reason = blockedAddress(address);
    if (reason !== null) throw new EgressRefused(`${host} resolves to a ${reason} address`);
  }
  return addresses[0]!.address;
}

function portOf(text: string | undefined, fallback: number): number | null {
  if (text === undefined || text === '') return fallback;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  return port >= 1 && port <= 65_535 ? port : null;
}

export class EgressProxy {
  private readonly server: http.Server;

  constructor(
    private readonly policy: EgressPolicy,
    private readonly logger: Logger,
    private readonly resolve: EgressResolver = systemResolver,
    /** Why a connection with this label is refused whatever its destination (a turn without network access), or null. */
    private readonly gate: (label: Record<string, unknown>) => string | null = () => null,
  ) {
    this.server = http.createServer({ requestTimeout: 0 });
    this.server.on('connect', (request: http.IncomingMessage, socket: net.Socket, head: Buffer) => void this.tunnel(request, socket, head));
    this.server.on('request', (request, response) => void this.forward(request, response));
    this.server.on('clientError', (_error, socket) => socket.destroy());
  }

  /** Serves one connection of a sandbox (`label` names it in the log). */
  handle(socket: net.Socket, label: Record<string, unknown>): void {
    const refusal = this.gate(label);
    if (refusal !== null) {
      // No network for this customer now: the connection closes unanswered, as if there were no way out at all.
      this.logger.info({ ...label, reason: refusal }, 'egress refused');
      socket.destroy();
      return;
    }
    socketLabels.set(socket, label);
    this.server.emit('connection', socket);
  }

  private checkGate(label: Record<string, unknown>): void {
    const refusal = this.gate(label);
    if (refusal !== null) throw new EgressRefused(refusal);
  }

  private refused(label: unknown, destination: string, error: unknown): string {
    const reason = error instanceof EgressRefused ? error.message : `cannot connect to ${destination}`;
    this.logger.info({ ...(label as object), destination, reason }, 'egress refused');
    return reason;
  }

  private async tunnel(request: http.IncomingMessage, client: net.Socket, head: Buffer): Promise<void> {
    const label = socketLabels.get(client) ?? {};
    const destination = request.url ?? '';
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(destination);
    const port = match ? portOf(match[2], 0) : null;
    client.on('error', () => undefined);
    try {
      if (!match || port === null) throw new EgressRefused('CONNECT needs host:port');
      this.checkGate(label);
      const address = await egressTarget(match[1]!, this.policy, this.resolve);
      const upstream = await connect(address, port);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      splice(client, upstream);
    } catch (error) {
      const reason = this.refused(label, destination, error);
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${reason}\n`);
    }
  }

  private async forward(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const label = socketLabels.get(request.socket) ?? {};
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      response.writeHead(400, { 'content-type': 'text/plain' }).end('a proxy request names an absolute http:// URL\n');
      return;
    }
    try {
      this.checkGate(label);
      if (url.protocol !== 'http:') throw new EgressRefused(`${url.protocol} is not forwarded (use CONNECT for https)`);
      const port = portOf(url.port, 80);
      if (port === null) throw new EgressRefused('invalid port');
      const address = await egressTarget(url.hostname, this.policy, this.resolve);
      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(request.headers)) if (!HOP_HEADERS.has(name)) headers[name] = value;
      headers.host = url.host;
      // A connection of its own (no pool shared between customers' requests).
      const outbound = http.request({
        host: address,
        port,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers,
        agent: false,
      });
      outbound.setTimeout(IDLE_TIMEOUT_MS, () => outbound.destroy(new Error('idle')));
      outbound.on('response', (answer) => {
        const back: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) if (!HOP_HEADERS.has(name)) back[name] = value;
        response.writeHead(answer.statusCode ?? 502, back);
        answer.pipe(response);
      });
      outbound.on('error', () => {
        if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' }).end(`cannot reach ${url.host}\n`);
        else response.destroy();
      });
      // A client that goes away takes its forwarded request with it.
      response.on('close', () => {
        if (!response.writableFinished) outbound.destroy();
      });
      request.pipe(outbound);
    } catch (error) {
      const reason = this.refused(label, url.host, error);
      response.writeHead(403, { 'content-type': 'text/plain', connection: 'close' }).end(`${reason}\n`);
    }
  }
}

const socketLabels = new WeakMap<net.Socket, Record<string, unknown>>();

function connect(address: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    const timer = setTimeout(() => socket.destroy(new Error('timeout')), CONNECT_TIMEOUT_MS);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeListener('error', reject);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Pipes both ways until either side ends or stays idle. */
function splice(a: net.Socket, b: net.Socket): void {
  for (const socket of [a, b]) {
    socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
    socket.on('error', () => {
      a.destroy();
      b.destroy();
    });
    socket.on('close', () => {
      a.destroy();
      b.destroy();
    });
  }
  a.pipe(b);
  b.pipe(a);
}
