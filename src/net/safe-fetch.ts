/**
 * Downloads a URL on a customer's behalf without letting the customer reach the service's own network (SSRF).
 * Per hop: `https` only, no credentials in the URL; the host name is resolved here (every address, both
 * families) and every address must pass `blockedAddress` unless the host is on the allow-list; the TLS
 * connection then goes to exactly the checked address (SNI and Host stay the name), so a second DNS answer can
 * never redirect it. Redirects are followed by hand, each target checked the same way, at most `maxRedirects`.
 * The body is capped at `maxBytes` (413 before or while reading) and the whole download at `timeoutMs`.
 */
import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import { Agent, request, type Dispatcher } from 'undici';
import { blockedAddress, inCidr } from './address-policy.js';

export interface SafeFetchPolicy {
  /** Host names (exact, or `*.example.com` for sub-domains), IP addresses or CIDRs exempt from the address check and the port rule. */
  allowHosts: readonly string[];
  /** Same syntax; always refused, also when resolved to. */
  denyHosts: readonly string[];
  /** Refuse every host not on `allowHosts`. */
  onlyAllowHosts: boolean;
  /** Ports allowed for hosts not on `allowHosts` (empty: any). */
  ports: readonly number[];
  maxBytes: number;
  maxRedirects: number;
  timeoutMs: number;
  /** Extra trusted CA certificates (PEM), added to the system roots. */
  extraCa?: string;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export type SafeFetchErrorKind = 'refused' | 'too_large' | 'upstream' | 'timeout';

export class SafeFetchError extends Error {
  constructor(
    readonly kind: SafeFetchErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface Downloaded {
  body: Buffer;
  finalUrl: string;
  contentType: string | null;
  /** Every address a connection was opened to, in order. */
  connectedTo: string[];
}

function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

function nameMatches(host: string, entry: string): boolean {
  const pattern = entry.toLowerCase().replace(/\.$/, '');
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return host === pattern;
}

function addressMatches(address: string, entry: string): boolean {
  const network = entry.split('/')[0] ?? '';
  return net.isIP(network) !== 0 && inCidr(address, entry);
}

function listed(list: readonly string[], host: string, address?: string): boolean {
  return list.some(
    (entry) =>
      nameMatches(host, entry) ||
      (address !== undefined && addressMatches(address, entry)) ||
      (net.isIP(host) !== 0 && addressMatches(host, entry)),
  );
}

/** Checks one URL and resolves its host: the checked address to connect to, or a `refused` error. */
export async function checkTarget(
  url: URL,
  policy: SafeFetchPolicy,
  resolve: Resolver,
): Promise<{ host: string; port: number; address: string }> {
  if (url.protocol !== 'https:') throw new SafeFetchError('refused', `only https URLs are fetched (got ${url.protocol.replace(':', '')})`);
  if (url.username || url.password) throw new SafeFetchError('refused', 'credentials in the URL are not accepted');
  const host = hostOf(url);
  if (!host) throw new SafeFetchError('refused', 'the URL has no host');
  if (listed(policy.denyHosts, host)) throw new SafeFetchError('refused', 'the host is not allowed');
  const allowedByName =
    policy.allowHosts.some((entry) => nameMatches(host, entry)) ||
    (net.isIP(host) !== 0 && policy.allowHosts.some((entry) => addressMatches(host, entry)));
  if (policy.onlyAllowHosts && !allowedByName) throw new SafeFetchError('refused', 'the host is not on the allow-list');
  const port = url.port === '' ? 443 : Number(url.port);
  if (!allowedByName && policy.ports.length > 0 && !policy.ports.includes(port))
    throw new SafeFetchError('refused', `port ${port} is not allowed`);

  let addresses: ResolvedAddress[];
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new SafeFetchError('refused', 'the host name does not resolve');
    }
  }
  if (addresses.length === 0) throw new SafeFetchError('refused', 'the host name does not resolve');
  for (const { address } of addresses) {
    if (listed(policy.denyHosts, host, address)) throw new SafeFetchError('refused', 'the host is not allowed');
    const reason = blockedAddress(address);
    if (reason && !allowedByName && !policy.allowHosts.some((entry) => addressMatches(address, entry))) {
      throw new SafeFetchError('refused', `the host resolves to a non-public address (${reason})`);
    }
  }
  return { host, port, address: addresses[0]!.address };
}

/** An undici dispatcher whose every connection goes to `address` (TLS name: the URL's host). */
function pinnedAgent(address: string, policy: SafeFetchPolicy, connectedTo: string[]): Agent {
  const ca = policy.extraCa ? [...tls.rootCertificates, policy.extraCa] : undefined;
  return new Agent({
    connections: 1,
    pipelining: 0,
    connect: (options, callback) => {
      let done = false;
      const finish = (error: Error | null, socket: tls.TLSSocket | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (error) callback(error, null);
        else callback(null, socket!);
      };
      connectedTo.push(address);
      const socket = tls.connect({
        host: address,
        port: Number(options.port) || 443,
        servername: net.isIP(options.hostname) ? undefined : options.hostname,
        ca,
        ALPNProtocols: ['http/1.1'],
      });
      const timer = setTimeout(
        () => {
          socket.destroy();
          finish(new SafeFetchError('timeout', 'connect timed out'), null);
        },
        Math.min(policy.timeoutMs, 10_000),
      );
      socket.once('secureConnect', () => finish(null, socket));
      socket.once('error', (error) => finish(error, null));
    },
  });
}

/** Drops a body not read (its abort error is expected, not an uncaught one). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) {
      discard(body);
      throw new SafeFetchError('too_large', `the download exceeds ${maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** GETs `rawUrl` under `policy`, following checked redirects. */
export async function safeDownload(rawUrl: string, policy: SafeFetchPolicy, resolve: Resolver = systemResolver): Promise<Downloaded> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new SafeFetchError('refused', 'not a valid URL');
  }
  const connectedTo: string[] = [];
  const signal = AbortSignal.timeout(policy.timeoutMs);
  for (let hop = 0; ; hop++) {
    const target = await checkTarget(url, policy, resolve);
    const agent = pinnedAgent(target.address, policy, connectedTo);
    try {
      let response: Dispatcher.ResponseData;
      try {
        response = await request(url, {
          dispatcher: agent,
          method: 'GET',
          signal,
          headersTimeout: policy.timeoutMs,
          bodyTimeout: policy.timeoutMs,
          headers: { 'user-agent': 'switchyard-object-workspace', accept: '*/*' },
        });
      } catch (error) {
        if (error instanceof SafeFetchError) throw error;
        if (signal.aborted) throw new SafeFetchError('timeout', 'the download timed out');
        throw new SafeFetchError('upstream', `the source could not be reached: ${(error as Error).message}`);
      }
      const location = response.headers.location;
      if (response.statusCode >= 300 && response.statusCode < 400 && location) {
        discard(response.body);
        if (hop >= policy.maxRedirects) throw new SafeFetchError('refused', `more than ${policy.maxRedirects} redirects`);
        try {
          url = new URL(String(location), url);
        } catch {
          throw new SafeFetchError('refused', 'a redirect points to an invalid URL');
        }
        continue;
      }
      if (response.statusCode < 200 || response.statusCode >= 300) {
        discard(response.body);
        throw new SafeFetchError('upstream', `the source answered ${response.statusCode}`);
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > policy.maxBytes) {
        discard(response.body);
        throw new SafeFetchError('too_large', `the download exceeds ${policy.maxBytes} bytes`);
      }
      let body: Buffer;
      try {
        body = await readCapped(response.body, policy.maxBytes);
      } catch (error) {
        if (error instanceof SafeFetchError) throw error;
        if (signal.aborted) throw new SafeFetchError('timeout', 'the download timed out');
        throw new SafeFetchError('upstream', 'the download broke off');
      }
      const contentType = response.headers['content-type'];
      return { body, finalUrl: url.href, contentType: typeof contentType === 'string' ? contentType : null, connectedTo };
    } finally {
      await agent.destroy().catch(() => undefined);
    }
  }
}
