/**
 * Local stand-ins for the object-workspace suites: a self-signed certificate made with openssl, an https
 * "repository host" serving archives and redirects, a trap listener that counts every TCP connection it gets
 * (blocked targets point at it), and small archive builders (ustar written here, zip through fflate).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { zipSync, type Zippable } from 'fflate';
import { tempDir } from '../helpers/databases.js';

export interface TestCertificate {
  key: string;
  cert: string;
  certFile: string;
}

/** A self-signed certificate for `repo.test` (and 127.0.0.1), its PEM file trusted through config `extraCaFile`. */
export function makeCertificate(): TestCertificate {
  const dir = tempDir('switchyard-cert-');
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=repo.test',
      '-addext',
      'subjectAltName=DNS:repo.test,DNS:mirror.repo.test,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), certFile };
}

export interface RepoHost {
  port: number;
  /** Paths requested, in order. */
  requests: string[];
  connections: number;
  files: Map<string, Buffer>;
  close(): Promise<void>;
}

/** An https server: `/redirect?to=<url>` answers 302, `/loop` redirects to itself, other paths serve `files`. */
export async function startRepoHost(certificate: TestCertificate): Promise<RepoHost> {
  const files = new Map<string, Buffer>();
  const host: RepoHost = { port: 0, requests: [], connections: 0, files, close: async () => undefined };
  const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (request, response) => {
    const url = new URL(request.url ?? '/', 'https://repo.test');
    host.requests.push(url.pathname + url.search);
    if (url.pathname === '/redirect') {
      response.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
      return response.end();
    }
    // Headers sent, body never finished: the download deadline must end it.
    if (url.pathname === '/slow') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.write('PK');
      return;
    }
    if (url.pathname === '/loop') {
      response.writeHead(302, { location: '/loop' });
      return response.end();
    }
    const body = files.get(url.pathname);
    if (!body) {
      response.writeHead(404);
      return response.end('no such file');
    }
    // No content-length for `/chunked/...`: the size cap must hold while reading.
    if (url.pathname.startsWith('/chunked/')) {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let offset = 0; offset < body.length; offset += 64 * 1024) response.write(body.subarray(offset, offset + 64 * 1024));
      return response.end();
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
    response.end(body);
  });
  server.on('secureConnection', () => host.connections++);
  const sockets = new Set<import('node:stream').Duplex>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host.port = (server.address() as AddressInfo).port;
  host.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return host;
}

export interface Trap {
  port: number;
  connections: string[];
  close(): Promise<void>;
}

/** Listens on every local address (IPv4 and IPv6) and records each connection it receives. */
export async function startTrap(): Promise<Trap> {
  const trap: Trap = { port: 0, connections: [], close: async () => undefined };
  const server = net.createServer((socket) => {
    trap.connections.push(`${socket.remoteAddress} -> ${socket.localAddress}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '::', ipv6Only: false }, resolve));
  trap.port = (server.address() as AddressInfo).port;
  trap.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return trap;
}

export interface TarEntry {
  name: string;
  type?: '0' | '1' | '2' | '5' | 'g' | 'x';
  data?: Buffer | string;
  linkname?: string;
}

/** A ustar archive (with end blocks). */
export function tar(entries: TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.data ?? '');
    const header = Buffer.alloc(512);
    header.write(entry.name.slice(0, 100), 0, 'utf8');
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('00000000000\0', 136);
    header.write(entry.type ?? '0', 156);
    header.write((entry.linkname ?? '').slice(0, 100), 157);
    header.write('ustar\0', 257);
    header.write('00', 263);
    header.fill(0x20, 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function tarGz(entries: TarEntry[]): Buffer {
  return zlib.gzipSync(tar(entries));
}

export function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = body.length + 1;
  while (`${length}${body}`.length !== length) length = `${length}${body}`.length;
  return `${length}${body}`;
}

export function zip(files: Zippable): Buffer {
  return Buffer.from(zipSync(files));
}
