/**
 * The service's end of each sandbox's network bridges (see appserver/sandbox-network.ts). Per customer whose
 * app-server runs in bubblewrap: a Unix socket whose connections go to this service's HTTP server (the
 * app-server's model provider, `/v1`), and, when the operator allows egress, a second one whose connections go to
 * the egress proxy. The sockets live in a folder of the service's data directory (mode 0700, never shown to a
 * sandbox but through the one bind mount of each socket), belong to the customer's uid, and are removed when the
 * customer's app-server stops. Every connection is marked with the customer the socket belongs to
 * (`sandboxCustomerOf`), so a request arriving on customer X's socket can act for customer X only.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { SandboxUnavailableError } from '../appserver/sandbox.js';
import type { SandboxBridges } from '../appserver/sandbox-network.js';
import type { EgressProxy } from '../net/egress-proxy.js';

/** Longest Unix socket path Linux accepts (sun_path is 108 bytes with its terminating NUL). */
const SOCKET_PATH_MAX = 107;

const customerOfSocket = new WeakMap<net.Socket, number>();

/** The customer whose sandbox a connection came from (its model socket), or undefined for any other connection. */
export function sandboxCustomerOf(socket: net.Socket | null | undefined): number | undefined {
  return socket ? customerOfSocket.get(socket) : undefined;
}

interface Open {
  servers: net.Server[];
  bridges: SandboxBridges;
}

export class SandboxSockets {
  private readonly open = new Map<number, Promise<Open>>();
  private sink: ((socket: net.Socket) => void) | null = null;

  constructor(
    /** Service-owned folder of the sockets. */
    private readonly dir: string,
    /** The egress proxy, or null when the sandboxes get no way out. */
    private readonly egress: EgressProxy | null,
    private readonly logger: Logger,
  ) {}

  /** Where connections of the model sockets go (the HTTP server); until set, they are closed. */
  serveWith(sink: (socket: net.Socket) => void): void {
    this.sink = sink;
  }

  /** The customer's sockets, listening and handed to `uid` (the same ones while they are open). */
  listen(customerId: number, uid: number | null): Promise<SandboxBridges> {
    let opened = this.open.get(customerId);
    if (!opened) {
      opened = this.start(customerId, uid);
      this.open.set(customerId, opened);
      opened.catch(() => this.open.delete(customerId));
    }
    return opened.then((entry) => entry.bridges);
  }

  /** Stops listening on the customer's sockets and removes them (connections already served end on their own). */
  async close(customerId: number): Promise<void> {
    const opened = this.open.get(customerId);
    if (!opened) return;
    this.open.delete(customerId);
    const entry = await opened.catch(() => null);
    if (entry) await closeAll(entry);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((customerId) => this.close(customerId)));
  }

  private async start(customerId: number, uid: number | null): Promise<Open> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    await fs.chmod(this.dir, 0o700);
    const file = (kind: string) => path.join(this.dir, `${customerId}.${kind}.sock`);
    if (Buffer.byteLength(file('egress')) > SOCKET_PATH_MAX) {
      throw new SandboxUnavailableError(
        `the sandbox socket path ${file('egress')} is longer than ${SOCKET_PATH_MAX} bytes (choose a shorter data directory)`,
      );
    }
    const entry: Open = { servers: [], bridges: { model: file('model'), egress: null } };
    try {
      entry.servers.push(await serve(file('model'), uid, (socket) => this.toHttp(customerId, socket)));
      if (this.egress !== null) {
        const proxy = this.egress;
        entry.servers.push(await serve(file('egress'), uid, (socket) => proxy.handle(socket, { customerId })));
        entry.bridges.egress = file('egress');
      }
    } catch (error) {
      await closeAll(entry);
      throw error;
    }
    return entry;
  }

  private toHttp(customerId: number, socket: net.Socket): void {
    if (this.sink === null) {
      this.logger.warn({ customerId }, 'a sandbox connection arrived before the HTTP server was ready; closed');
      socket.destroy();
      return;
    }
    customerOfSocket.set(socket, customerId);
    this.sink(socket);
  }
}

/** Listens on `file` (a stale socket there is replaced), owned by `uid`, mode 0600. */
async function serve(file: string, uid: number | null, onConnection: (socket: net.Socket) => void): Promise<net.Server> {
  const stale = await fs.lstat(file).catch(() => null);
  if (stale?.isSocket()) await fs.unlink(file);
  else if (stale) throw new SandboxUnavailableError(`${file} exists and is not a socket`);
  const server = net.createServer({ pauseOnConnect: false }, (socket) => {
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path: file, backlog: 512 }, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  try {
    await fs.chmod(file, 0o600);
    if (uid !== null) await fs.lchown(file, uid, uid);
  } catch (error) {
    await new Promise((resolve) => server.close(resolve));
    throw error;
  }
  return server;
}

async function closeAll(entry: Open): Promise<void> {
  // Closing a listening Unix socket server removes its file.
  await Promise.all(entry.servers.map((server) => new Promise((resolve) => server.close(resolve))));
}

/** The one start-up line's words for the network every sandbox gets. */
export function describeNetwork(sandboxed: boolean, egress: { mode: string; allowedDomains: readonly string[] }): string {
  if (!sandboxed) return 'agent network: shared with this service (no sandbox, no network namespace); egress is not controlled';
  const way =
    egress.mode === 'proxy'
      ? `egress through the service's proxy to ${egress.allowedDomains.length} allowed domain${egress.allowedDomains.length === 1 ? '' : 's'}`
      : 'no egress';
  return `agent network: a network namespace per sandbox (only its own loopback; the model provider through a Unix socket); ${way}`;
}
