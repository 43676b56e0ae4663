import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { AppServerClient, versionFromUserAgent } from '../../src/appserver/client.js';
import { JsonRpcConnection } from '../../src/appserver/connection.js';
import { AppServerExitedError, AppServerTimeoutError } from '../../src/appserver/errors.js';
import { readLines, StdioTransport, type TransportExit } from '../../src/appserver/transport.js';
import { defaultCodexBinary } from '../../src/agent/runtime-config.js';
import { tempDir } from '../helpers/databases.js';

describe('line reader', () => {
  it('splits chunks at newlines, joins lines across chunk boundaries and drops oversize lines', () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    const dropped: number[] = [];
    readLines(
      stream,
      10,
      (line) => lines.push(line),
      (length) => dropped.push(length),
    );
    stream.write('ab');
    stream.write('c\r\nde');
    stream.write('f\n0123456789ABCDEF');
    stream.write('GHI\nok\n');
    stream.end('tail');
    return new Promise<void>((resolve) => {
      stream.on('end', () => {
        expect(lines).toEqual(['abc', 'def', 'ok', 'tail']);
        expect(dropped).toEqual([19]);
        resolve();
      });
      stream.resume();
    });
  });
});

describe('JSON-RPC connection', () => {
  it('keeps our ids apart from the server ids, times out unanswered requests and rejects pending ones on close', async () => {
    const sent: string[] = [];
    const notifications: string[] = [];
    const connection = new JsonRpcConnection(
      { send: async (line) => void sent.push(line) },
      {
        onServerRequest: async (request) => ({ echoed: request.params }),
        onNotification: (notification) => notifications.push(notification.method),
        onProtocolError: () => undefined,
      },
      50,
    );
    // A long timeout for the exchange below (a loaded machine may delay it past the 50 ms default).
    const first = connection.request<{ ok: boolean }>('thread/list', {}, 10_000);
    expect(JSON.parse(sent[0]!)).toEqual({ id: 1, method: 'thread/list', params: {} });
    // A server request with id 1 must not settle our request 1.
    connection.handleLine(JSON.stringify({ id: 1, method: 'item/fileChange/requestApproval', params: { x: 1 } }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(JSON.parse(sent[1]!)).toEqual({ id: 1, result: { echoed: { x: 1 } } });
    connection.handleLine(JSON.stringify({ method: 'turn/started', params: {} }));
    connection.handleLine(JSON.stringify({ id: 1, result: { ok: true } }));
    await expect(first).resolves.toEqual({ ok: true });
    expect(notifications).toEqual(['turn/started']);

    await expect(connection.request('model/list', {})).rejects.toBeInstanceOf(AppServerTimeoutError);
    const pending = connection.request('model/list', {}, 10_000);
    connection.close(new Error('exited'));
    await expect(pending).rejects.toThrow('exited');
    await expect(connection.request('model/list', {})).rejects.toThrow('exited');
  });
});

describe('app-server client', () => {
  it('performs the handshake with the real binary and reports the pinned version', async () => {
    const codexHome = tempDir('codex-home-');
    const exits: unknown[] = [];
    const client = new AppServerClient({
      binary: defaultCodexBinary(),
      args: ['app-server', '--disable', 'plugins'],
      env: { PATH: process.env.PATH, CODEX_HOME: codexHome, LOG_FORMAT: 'json' },
      requestTimeoutMs: 10_000,
      lineLengthMax: 1024 * 1024,
      stopGraceMs: 2_000,
      clientName: 'switchyard',
      clientVersion: 'test',
      logger: pino({ level: 'silent' }),
      onNotification: () => undefined,
      onServerRequest: async () => ({}),
      onExit: (exit) => exits.push(exit),
    });
    const initialized = await client.start();
    expect(initialized.userAgent).toContain('/0.147.0');
    expect(client.version).toBe('0.147.0');
    const profiles = await client.call('permissionProfile/list', {});
    expect(profiles.data.map((profile) => profile.id)).toContain(':workspace');
    await client.stop();
    expect(exits).toEqual([{ code: 0, signal: null }]);
    expect(client.running).toBe(false);
    await expect(client.call('model/list', {})).rejects.toThrow(/exited/);
  });

  it('parses the version out of the user agent', () => {
    expect(versionFromUserAgent('switchyard/0.147.0 (Debian 12.0.0; x86_64) xterm (switchyard; 1)')).toBe('0.147.0');
    expect(versionFromUserAgent('garbage')).toBeNull();
  });
});

describe('stdio transport', () => {
  function transport(binary: string, args: string[], lineLengthMax = 1_000) {
    const lines: string[] = [];
    const oversize: number[] = [];
    let exit: TransportExit | null = null;
    const instance = new StdioTransport(
      { binary, args, env: { PATH: process.env.PATH }, lineLengthMax, stopGraceMs: 200 },
      {
        onLine: (line) => lines.push(line),
        onStderrLine: () => undefined,
        onOversizeLine: (length) => oversize.push(length),
        onExit: (value) => (exit = value),
      },
    );
    return { instance, lines, oversize, exit: () => exit };
  }

  it('drops an oversize line and keeps reading the next ones', async () => {
    const child = transport('/bin/sh', ['-c', 'head -c 5000 /dev/zero | tr "\\0" a; echo; echo after']);
    await child.instance.waitForExit();
    expect(child.oversize).toEqual([5000]);
    expect(child.lines).toEqual(['after']);
  });

  it('passes large writes through with backpressure', async () => {
    const child = transport('/bin/sh', ['-c', 'wc -c']);
    const line = 'x'.repeat(256 * 1024);
    for (let index = 0; index < 40; index += 1) await child.instance.send(line);
    await child.instance.stop();
    expect(Number(child.lines[0])).toBe(40 * (line.length + 1));
  });

  it('escalates stop from stdin end to SIGTERM to SIGKILL', async () => {
    const ignoresEof = transport('/bin/sleep', ['30']);
    expect(await ignoresEof.instance.stop()).toEqual({ code: null, signal: 'SIGTERM' });
    const ignoresTerm = transport('/bin/sh', ['-c', 'trap "" TERM; while :; do sleep 0.05; done']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await ignoresTerm.instance.stop()).toEqual({ code: null, signal: 'SIGKILL' });
    await expect(ignoresTerm.instance.send('late')).rejects.toThrow('not running');
  });
});

describe('app-server client start failures', () => {
  it('rejects the handshake when a bad configuration makes the server exit before answering', async () => {
    const exits: TransportExit[] = [];
    const client = new AppServerClient({
      binary: defaultCodexBinary(),
      args: ['app-server', '--disable', 'plugins', '-c', 'model_provider="missing-provider"'],
      env: { PATH: process.env.PATH, CODEX_HOME: tempDir('codex-home-'), LOG_FORMAT: 'json' },
      requestTimeoutMs: 20_000,
      lineLengthMax: 1024 * 1024,
      stopGraceMs: 500,
      clientName: 'switchyard',
      clientVersion: 'test',
      logger: pino({ level: 'silent' }),
      onNotification: () => undefined,
      onServerRequest: async () => ({}),
      onExit: (exit) => exits.push(exit),
    });
    const startedAt = Date.now();
    await expect(client.start()).rejects.toBeInstanceOf(AppServerExitedError);
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(exits[0]!.code).not.toBe(0);
  });
});

describe('bridge failures as HTTP errors', () => {
  it('maps refusals to 400, exits to 503 with Retry-After and timeouts to 504', async () => {
    const { mapAppServerError } = await import('../../src/agent/project-runtime.js');
    const { AppServerError } = await import('../../src/appserver/errors.js');
    const refused = mapAppServerError(new AppServerError('turn input must not be empty', -32600)) as { status: number; message: string };
    expect(refused.status).toBe(400);
    expect(refused.message).toContain('turn input must not be empty');
    // A thread the app-server does not have is a 404 on every surface (one mapping for project and direct routes).
    expect((mapAppServerError(new AppServerError('thread not found: x', -32600)) as { status: number }).status).toBe(404);
    const exited = mapAppServerError(new AppServerExitedError('gone')) as { status: number; retryAfterSeconds: number };
    expect([exited.status, exited.retryAfterSeconds]).toEqual([503, 1]);
    expect((mapAppServerError(new AppServerTimeoutError('turn/start', 10)) as { status: number }).status).toBe(504);
  });
});
