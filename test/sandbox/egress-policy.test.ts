/**
 * The parts of the sandbox network that need no real turn: which destinations the egress proxy lets through,
 * the bridge script the sandbox runs, a start-up probe that refuses a sandbox it cannot bridge, and the gate
 * that closes a customer's egress while a turn without network access runs.
 */
import http from 'node:http';
import net from 'node:net';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { domainAllowed, EgressProxy, egressTarget, EgressRefused, type EgressResolver } from '../../src/net/egress-proxy.js';
import { forLandlockMode, turnDeniesNetwork, TurnNetworkGate, withoutNetwork } from '../../src/agent/turn-network.js';
import { bridgeScript, egressEnv } from '../../src/appserver/sandbox-network.js';
import { AppServerSandbox } from '../../src/appserver/sandbox.js';
import { parseConfigFile } from '../../src/config/load-config.js';
import { SANDBOX_UNAVAILABLE, UID_FIRST } from './sandbox-support.js';

const answers: Record<string, string[]> = {
  'pkg.example.org': ['93.184.215.14'],
  'mixed.example.org': ['93.184.215.14', '10.0.0.5'],
  'meta.example.org': ['169.254.169.254'],
  'mapped6.example.org': ['::ffff:127.0.0.1'],
};
const resolve: EgressResolver = async (host) => {
  const list = answers[host];
  if (!list) throw new Error('ENOTFOUND');
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const policy = {
  allowedDomains: ['pkg.example.org', '*.example.org', 'mirror.internal'],
  hosts: { 'mirror.internal': '10.1.2.3', 'unlisted.internal': '10.9.9.9' },
};

describe('egress destinations', () => {
  it('matches exact names and sub-domains of a wildcard, never the bare parent of a wildcard', () => {
    expect(domainAllowed('example.org', ['*.example.org'])).toBe(false);
    expect(domainAllowed('a.b.example.org', ['*.example.org'])).toBe(true);
    expect(domainAllowed('evilexample.org', ['*.example.org'])).toBe(false);
    expect(domainAllowed('pkg.example.org', ['PKG.Example.org.'])).toBe(true);
  });

  it('passes an allowed name to its public address, and a mapped name to its operator-chosen address', async () => {
    expect(await egressTarget('PKG.example.org.', policy, resolve)).toBe('93.184.215.14');
    expect(await egressTarget('mirror.internal', policy, resolve)).toBe('10.1.2.3');
  });

  it('refuses IP literals, names off the list (mapped or not), and names with any non-public address', async () => {
    const refused = async (host: string, reason: RegExp) => {
      const error = await egressTarget(host, policy, resolve).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EgressRefused);
      expect((error as Error).message).toMatch(reason);
    };
    await refused('127.0.0.1', /only host names/);
    await refused('[::1]', /only host names/);
    await refused('93.184.215.14', /only host names/);
    await refused('unlisted.internal', /not on the egress allow-list/);
    await refused('other.net', /not on the egress allow-list/);
    await refused('mixed.example.org', /private/);
    await refused('meta.example.org', /link-local/);
    await refused('mapped6.example.org', /loopback/);
    await refused('missing.example.org', /does not resolve/);
  });
});

describe('turns without network access', () => {
  it('close the customer’s egress from before the start until the turn completes, and only that customer’s', async () => {
    const gate = new TurnNetworkGate();
    let seenDuringStart: string | null = null;
    await withoutNetwork(gate, 7, async () => {
      seenDuringStart = gate.refusal(7);
      return { turn: { id: 'turn-1' } };
    });
    expect(seenDuringStart).toMatch(/network access is off/);
    expect(gate.refusal(7)).toMatch(/network access is off/);
    expect(gate.refusal(8)).toBeNull();
    gate.completed(7, 'turn-1');
    expect(gate.refusal(7)).toBeNull();
    // A start that fails closes nothing for good; a turn completing before its start is answered neither.
    await expect(withoutNetwork(gate, 7, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(gate.refusal(7)).toBeNull();
    await withoutNetwork(gate, 7, async () => {
      gate.completed(7, 'turn-2');
      return { turn: { id: 'turn-2' } };
    });
    expect(gate.refusal(7)).toBeNull();
    // The app-server stopping ends every turn it ran.
    await withoutNetwork(gate, 7, async () => ({ turn: { id: 'turn-3' } }));
    gate.ended(7);
    expect(gate.refusal(7)).toBeNull();
  });

  it('read networkAccess from the legacy policy, and hand workspaceWrite to a Landlock-mode Codex as externalSandbox', () => {
    const write = {
      type: 'workspaceWrite',
      writableRoots: [],
      networkAccess: false,
      excludeTmpdirEnvVar: false,
      excludeSlashTmp: false,
    } as const;
    expect(turnDeniesNetwork({ sandboxPolicy: write })).toBe(true);
    expect(turnDeniesNetwork({ sandboxPolicy: { ...write, networkAccess: true } })).toBe(false);
    expect(turnDeniesNetwork({ sandboxPolicy: { type: 'readOnly', networkAccess: false } })).toBe(true);
    expect(turnDeniesNetwork({ sandboxPolicy: { type: 'dangerFullAccess' } })).toBe(false);
    expect(turnDeniesNetwork({})).toBe(false);
    expect(forLandlockMode({ sandboxPolicy: write })).toEqual({ sandboxPolicy: { type: 'externalSandbox', networkAccess: 'restricted' } });
    expect(forLandlockMode({ sandboxPolicy: { ...write, networkAccess: true } }).sandboxPolicy).toEqual({
      type: 'externalSandbox',
      networkAccess: 'enabled',
    });
    expect(forLandlockMode({ sandboxPolicy: { type: 'readOnly', networkAccess: false } }).sandboxPolicy?.type).toBe('readOnly');
  });

  it('the proxy closes a gated customer’s connection unanswered, and serves another customer', async () => {
    const site = http.createServer((_request, response) => response.end('site-answer\n'));
    await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
    const port = (site.address() as net.AddressInfo).port;
    const gate = new TurnNetworkGate();
    const proxy = new EgressProxy(
      { allowedDomains: ['site.test'], hosts: { 'site.test': '127.0.0.1' } },
      pino({ level: 'silent' }),
      resolve,
      (label) => gate.refusal(Number(label.customerId)),
    );
    // What the sandbox's bridge would do: a connection of the customer handed to the proxy.
    const ask = async (customerId: number) => {
      const front = net.createServer((socket) => proxy.handle(socket, { customerId }));
      await new Promise<void>((done) => front.listen(0, '127.0.0.1', done));
      const client = net.connect((front.address() as net.AddressInfo).port, '127.0.0.1');
      let answer = '';
      client.on('data', (chunk) => (answer += chunk));
      client.on('error', () => undefined);
      client.write(`GET http://site.test:${port}/ HTTP/1.1\r\nhost: site.test:${port}\r\nconnection: close\r\n\r\n`);
      await new Promise((done) => client.on('close', done));
      await new Promise((done) => front.close(done));
      return answer;
    };
    try {
      await withoutNetwork(gate, 1, async () => ({ turn: { id: 't' } }));
      expect(await ask(1)).toBe('');
      expect(await ask(2)).toContain('site-answer');
      gate.completed(1, 't');
      expect(await ask(1)).toContain('site-answer');
    } finally {
      await new Promise((done) => site.close(done));
    }
  });
});

describe('agent.egress in the config file', () => {
  const parse = (egress: object) => parseConfigFile({ agent: { egress } }, {});

  it('defaults to no egress, and takes a mode, allowed domains and host mappings', () => {
    expect(parseConfigFile({}, {}).agent.egress).toEqual({ mode: 'off', allowedDomains: [], hosts: {} });
    const egress = parse({ mode: 'proxy', allowedDomains: ['pypi.org', '*.pythonhosted.org'], hosts: { 'mirror.internal': '10.0.0.8' } });
    expect(egress.agent.egress.allowedDomains).toEqual(['pypi.org', '*.pythonhosted.org']);
  });

  it('refuses an unknown mode, a malformed domain and a mapping to something not an IP address, naming the field', () => {
    expect(() => parse({ mode: 'open' })).toThrow(/agent\.egress\.mode/);
    expect(() => parse({ allowedDomains: ['http://example.org/'] })).toThrow(/agent\.egress\.allowedDomains\[0\]/);
    expect(() => parse({ hosts: { 'mirror.internal': 'mirror.example.org' } })).toThrow(
      /agent\.egress\.hosts\["mirror\.internal"\]: "mirror\.example\.org" is not an IP address/,
    );
  });
});

describe('sandbox bridges', () => {
  it('starts one socat per bridge on the loopback, waits for each, then runs the app-server', () => {
    const script = bridgeScript({ model: '/x/1.model.sock', egress: '/x/1.egress.sock' }, '/usr/bin/socat');
    expect(script).toContain('TCP-LISTEN:9300,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/run/switchyard/model.sock');
    expect(script).toContain('TCP-LISTEN:3128,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/run/switchyard/egress.sock');
    expect(script).toContain("grep -q '0100007F:2454 00000000:0000 0A' /proc/net/tcp");
    expect(script.trim().endsWith('exec "$@"')).toBe(true);
    expect(bridgeScript({ model: '/x/1.model.sock', egress: null }, '/usr/bin/socat')).not.toContain('3128');
    expect(egressEnv({ model: '/m', egress: null })).toEqual({});
    expect(egressEnv({ model: '/m', egress: '/e' })).toMatchObject({
      https_proxy: 'http://127.0.0.1:3128',
      NO_PROXY: 'localhost,127.0.0.1,::1',
    });
  });

  it.skipIf(SANDBOX_UNAVAILABLE !== null)(
    'counts bubblewrap as unavailable when the bridge cannot be built',
    async () => {
      const sandbox = await AppServerSandbox.detect(
        {
          mode: 'auto',
          bwrap: '/usr/bin/bwrap',
          socat: '/nonexistent/socat',
          uidFirst: UID_FIRST,
          uidCount: 1_000,
          hidden: [],
          codexDirs: [],
        },
        pino({ level: 'silent' }),
      );
      expect(sandbox.kind).toBe('none');
      expect(sandbox.reason).toMatch(/socat not found/);
      // /bin/false "listens" on nothing: the probe sees no bridge and says so.
      const broken = await AppServerSandbox.detect(
        { mode: 'auto', bwrap: '/usr/bin/bwrap', socat: '/bin/false', uidFirst: UID_FIRST, uidCount: 1_000, hidden: [], codexDirs: [] },
        pino({ level: 'silent' }),
      );
      expect(broken.kind).toBe('none');
      expect(broken.reason).toMatch(/bridge|bubblewrap failed/);
    },
    30_000,
  );
});
