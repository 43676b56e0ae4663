/**
 * The parts of the sandbox network that need no real turn: which destinations the egress proxy lets through,
 * the bridge script the sandbox runs, and a start-up probe that refuses a sandbox it cannot bridge.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { domainAllowed, egressTarget, EgressRefused, type EgressResolver } from '../../src/net/egress-proxy.js';
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

describe('agent.egress in the config file', () => {
  const parse = (egress: object) => parseConfigFile({ agent: { egress } }, {});

  it('defaults to no egress, and takes a mode, allowed domains and host mappings', () => {
    expect(parseConfigFile({}, {}).agent.egress).toEqual({ mode: 'off', allowedDomains: [], hosts: {} });
    const egress = parse({ mode: 'proxy', allowedDomains: ['pypi.org', '*.pythonhosted.org'], hosts: { 'mirror.internal': '10.0.0.8' } });
    expect(egress.agent.egress.allowedDomains).toEqual(['pypi.org', '*.pythonhosted.org']);
  });

  it('refuses an unknown mode, a malformed domain and a mapping to something not an IP address, naming the field', () => {
    expect(() => parse({ mode: 'open' })).toThrow(/\/agent\/egress\/mode/);
    expect(() => parse({ allowedDomains: ['http://example.org/'] })).toThrow(/\/agent\/egress\/allowedDomains\/0/);
    expect(() => parse({ hosts: { 'mirror.internal': 'mirror.example.org' } })).toThrow(
      /\/agent\/egress\/hosts\/mirror.internal: "mirror.example.org" is not an IP address/,
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
