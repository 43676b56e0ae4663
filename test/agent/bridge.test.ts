import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { AppServerClient, versionFromUserAgent } from '../../src/appserver/client.js';
import { JsonRpcConnection } from '../../src/appserver/connection.js';
import { AppServerTimeoutError } from '../../src/appserver/errors.js';
import { readLines } from '../../src/appserver/transport.js';
import { defaultCodexBinary } from '../../src/agent/runtime-config.js';
import { tempDir } from '../helpers/databases.js';

describe('line reader', () => {
  it('splits chunks at newlines, joins lines across chunk boundaries and drops oversize lines', () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    const dropped: number[] = [];
    readLines(stream, 10, (line) => lines.push(line), (length) => dropped.push(length));
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
    const first = connection.request<{ ok: boolean }>('thread/list', {});
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
