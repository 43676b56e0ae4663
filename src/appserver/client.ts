/**
 * Typed client of one app-server process: spawns it, performs the handshake (notification handlers are in place
 * before `initialize`, because the server pushes notifications right after its reply), checks the pinned
 * version, and exposes typed calls. Exit of the process rejects every pending call and is reported once.
 */
import type { Logger } from 'pino';
import { JsonRpcConnection, type JsonRpcNotification, type JsonRpcServerRequest } from './connection.js';
import { AppServerExitedError } from './errors.js';
import type { ClientMethod, ClientMethods, InitializeResponse } from './protocol.js';
import { StdioTransport, type TransportExit } from './transport.js';

export const PINNED_APP_SERVER_VERSION = '0.147.0';

export interface AppServerClientOptions {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  requestTimeoutMs: number;
  lineLengthMax: number;
  stopGraceMs: number;
  clientName: string;
  clientVersion: string;
  logger: Logger;
  onNotification(notification: JsonRpcNotification): void;
  onServerRequest(request: JsonRpcServerRequest): Promise<unknown>;
  onExit(exit: TransportExit): void;
}

export class AppServerClient {
  private transport: StdioTransport | null = null;
  private connection: JsonRpcConnection | null = null;
  /** `userAgent` version reported by `initialize`, e.g. 0.147.0. */
  version: string | null = null;

  constructor(private readonly options: AppServerClientOptions) {}

  get pid(): number | undefined {
    return this.transport?.pid;
  }

  get running(): boolean {
    return this.transport?.running ?? false;
  }

  async start(): Promise<InitializeResponse> {
    const { options } = this;
    const log = options.logger;
    // The connection writes its lines to the transport, the transport hands it the lines it reads: the connection
    // is built first with a sender onto the transport, which exists before anything is sent.
    const connection = new JsonRpcConnection(
      { send: (line) => transport.send(line) },
      {
        onServerRequest: options.onServerRequest,
        onNotification: options.onNotification,
        onProtocolError: (message, line) => log.warn({ line: line.slice(0, 200) }, `app-server protocol: ${message}`),
      },
      options.requestTimeoutMs,
    );
    const transport = new StdioTransport(
      {
        binary: options.binary,
        args: options.args,
        env: options.env,
        cwd: options.cwd,
        lineLengthMax: options.lineLengthMax,
        stopGraceMs: options.stopGraceMs,
      },
      {
        onLine: (line) => connection.handleLine(line),
        onStderrLine: (line) => log.debug({ appServer: parseStderr(line) }, 'app-server log'),
        onOversizeLine: (lengthBytes) => log.warn({ lengthBytes }, 'app-server line over the length limit dropped'),
        onExit: (exit) => {
          connection.close(new AppServerExitedError(`app-server exited (code ${exit.code}, signal ${exit.signal})`));
          options.onExit(exit);
        },
      },
    );
    this.transport = transport;
    this.connection = connection;
    // A bad configuration makes the server exit before it answers; the exit rejects the pending initialize.
    const initialized = await connection.request<InitializeResponse>('initialize', {
      clientInfo: { name: options.clientName, title: 'Switchyard', version: options.clientVersion },
      capabilities: { experimentalApi: true },
    });
    await connection.notify('initialized');
    this.version = versionFromUserAgent(initialized.userAgent);
    if (this.version !== PINNED_APP_SERVER_VERSION) {
      log.warn({ userAgent: initialized.userAgent, expected: PINNED_APP_SERVER_VERSION }, 'app-server version differs from the pinned one');
    }
    return initialized;
  }

  call<M extends ClientMethod>(method: M, params: ClientMethods[M][0], timeoutMs?: number): Promise<ClientMethods[M][1]> {
    if (!this.connection) return Promise.reject(new AppServerExitedError('app-server not started'));
    return this.connection.request<ClientMethods[M][1]>(method, params, timeoutMs);
  }

  /** Untyped call for methods outside the typed slice. */
  callRaw(method: string, params: unknown, timeoutMs?: number): Promise<unknown> {
    if (!this.connection) return Promise.reject(new AppServerExitedError('app-server not started'));
    return this.connection.request(method, params, timeoutMs);
  }

  async stop(): Promise<void> {
    await this.transport?.stop();
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    this.transport?.kill(signal);
  }

  waitForExit(): Promise<TransportExit> | undefined {
    return this.transport?.waitForExit();
  }
}

/** `switchyard/0.147.0 (Debian …)` → `0.147.0`. */
export function versionFromUserAgent(userAgent: string): string | null {
  const match = /^[^/\s]+\/(\d+\.\d+\.\d+[^\s]*)/.exec(userAgent);
  return match ? match[1]! : null;
}

function parseStderr(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    // Plain-text lines carry ANSI colours even when piped.
    // eslint-disable-next-line no-control-regex -- ESC starts the colour codes removed here
    return line.replace(/\u001b\[[0-9;]*m/g, '');
  }
}
