import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';
import { blockedAddress } from '../../src/net/address-policy.js';
import { checkTarget, systemResolver } from '../../src/net/safe-fetch.js';
import { makeCertificate, startRepoHost, startTrap, zip, type RepoHost, type Trap } from './support.js';

/**
 * Every payload points at an address of this machine or a non-public range, at the port of a trap listening on
 * every local address. The fetch must be refused (422) before any connection: the trap must see none, and the
 * TLS connect spy must only ever see connections to the allow-listed repository host.
 */
describe('object-workspace repository fetch: SSRF refusals', () => {
  let context: TestContext;
  let repo: RepoHost;
  let trap: Trap;
  let alice: SignedUp;
  const connects: { host?: string; servername?: string; port?: number }[] = [];

  const names: Record<string, string[]> = {
    'loopback.evil.test': ['127.0.0.1'],
    'loop2.evil.test': ['127.8.9.10'],
    'meta.evil.test': ['169.254.169.254'],
    'v6loop.evil.test': ['::1'],
    'mapped.evil.test': ['::ffff:127.0.0.1'],
    'private10.evil.test': ['10.0.0.5'],
    'private172.evil.test': ['172.20.1.1'],
    'private192.evil.test': ['192.168.10.10'],
    'cgnat.evil.test': ['100.64.1.1'],
    'ula.evil.test': ['fd12:3456::1'],
    'linklocal6.evil.test': ['fe80::1'],
    'nat64.evil.test': ['64:ff9b::7f00:1'],
    'sixtofour.evil.test': ['2002:7f00:1::1'],
    'zero.evil.test': ['0.0.0.0'],
    'mixed.evil.test': ['93.184.216.34', '127.0.0.1'],
    'mixed6.evil.test': ['2606:4700::1111', 'fd00::1'],
    // The allow-listed name resolves to loopback (allowed); the same address under another name is not.
    'repo.test': ['127.0.0.1'],
  };

  beforeAll(async () => {
    const certificate = makeCertificate();
    repo = await startRepoHost(certificate);
    trap = await startTrap();
    repo.files.set('/ok.zip', zip({ 'README.md': new TextEncoder().encode('hello') }));
    context = await createTestContext({
      config: {
        desktop: {
          objectWorkspace: { allowHosts: ['repo.test'], ports: [], extraCaFile: certificate.certFile, maxRedirects: 3, timeoutMs: 10_000 },
        },
      } as never,
    });
    context.services.objectWorkspace.resolve = async (hostname) => {
      const addresses = names[hostname];
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    alice = await signUp(context, 'alice');
    const original = tls.connect.bind(tls);
    vi.spyOn(tls, 'connect').mockImplementation(((options: tls.ConnectionOptions) => {
      connects.push({ host: options.host, servername: options.servername, port: options.port });
      return original(options);
    }) as never);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await context.close();
    await repo.close();
    await trap.close();
  });

  const fetchRepo = (sourceUrl: string, name = 'target') =>
    context.app.inject({
      method: 'POST',
      url: `/api/v1/assistant-desktop/object-workspace/repositories/${name}?sourceUrl=${encodeURIComponent(sourceUrl)}`,
      headers: bearer(alice.systemToken),
    });

  const payloads = (): string[] => {
    const p = trap.port;
    const r = repo.port;
    const hosts = [
      // IPv4 loopback spelled every way the URL parser accepts.
      '127.0.0.1',
      '2130706433',
      '0x7f000001',
      '0x7f.1',
      '0x7f.0.0.1',
      '0x7f.0x0.0x0.0x1',
      '017700000001',
      '0177.0.0.1',
      '0177.1',
      '127.1',
      '127.0.1',
      '127.000.000.001',
      '127.255.255.254',
      '0.0.0.0',
      '0',
      '0x0',
      '0.0.0.1',
      // Private, link-local, metadata, CGNAT, multicast, reserved, documentation, benchmarking.
      '10.0.0.1',
      '10.255.255.255',
      '012.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '192.168.1.1',
      '3232235777',
      '169.254.169.254',
      '2852039166',
      '0xa9fea9fe',
      '0251.0376.0251.0376',
      '169.254.0.1',
      '100.64.0.1',
      '100.127.255.254',
      '100.100.100.200',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '198.18.0.1',
      '192.0.0.170',
      '192.0.2.1',
      '203.0.113.7',
      // IPv6 forms.
      '[::1]',
      '[0:0:0:0:0:0:0:1]',
      '[::]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[0:0:0:0:0:ffff:7f00:1]',
      '[::ffff:169.254.169.254]',
      '[::ffff:10.0.0.1]',
      '[::ffff:192.168.1.1]',
      '[::127.0.0.1]',
      '[::ffff:0:127.0.0.1]',
      '[64:ff9b::127.0.0.1]',
      '[64:ff9b::a9fe:a9fe]',
      '[64:ff9b:1::1]',
      '[2002:7f00:1::]',
      '[2002:a9fe:a9fe::1]',
      '[2002:c0a8:101::1]',
      '[fc00::1]',
      '[fd00:ec2::254]',
      '[fe80::1]',
      '[fec0::1]',
      '[ff02::1]',
      '[2001:db8::1]',
      '[2001::1]',
      '[100::1]',
      // Names resolving to non-public addresses (one bad address among good ones is enough).
      'loopback.evil.test',
      'loop2.evil.test',
      'meta.evil.test',
      'v6loop.evil.test',
      'mapped.evil.test',
      'private10.evil.test',
      'private172.evil.test',
      'private192.evil.test',
      'cgnat.evil.test',
      'ula.evil.test',
      'linklocal6.evil.test',
      'nat64.evil.test',
      'sixtofour.evil.test',
      'zero.evil.test',
      'mixed.evil.test',
      'mixed6.evil.test',
      'nx.evil.test',
    ];
    const direct = hosts.map((host) => `https://${host}:${p}/repo.zip`);
    const other = [
      // Not https, or credentials in the URL, even for the allowed host.
      `http://2130706433:${p}/`,
      `http://127.0.0.1:${p}/repo.zip`,
      `http://repo.test:${r}/ok.zip`,
      `ftp://127.0.0.1:${p}/x.zip`,
      'file:///etc/passwd',
      `gopher://127.0.0.1:${p}/_x`,
      `https://user:pass@repo.test:${r}/ok.zip`,
      'not a url',
      // Redirects from the allowed host to blocked targets: each hop is checked again.
      ...[
        `https://127.0.0.1:${p}/`,
        `https://[::1]:${p}/`,
        `https://2130706433:${p}/`,
        `https://meta.evil.test:${p}/latest/meta-data/`,
        `https://[::ffff:7f00:1]:${p}/`,
        `http://repo.test:${r}/ok.zip`,
        `https://loopback.evil.test:${p}/`,
        `https://0x7f.1:${p}/`,
      ].map((to) => `https://repo.test:${r}/redirect?to=${encodeURIComponent(to)}`),
      // A redirect to a redirect to a blocked address, and an endless redirect loop.
      `https://repo.test:${r}/redirect?to=${encodeURIComponent(`https://repo.test:${r}/redirect?to=${encodeURIComponent(`https://10.0.0.1:${p}/`)}`)}`,
      `https://repo.test:${r}/loop`,
    ];
    return [...direct, ...other];
  };

  it('the address policy itself refuses every non-public form and passes public ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '169.254.169.254',
      '100.64.0.1',
      '::1',
      '::ffff:127.0.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::',
      'fd00::1',
      'fe80::1',
      'ff02::1',
      '0.0.0.0',
      '255.255.255.255',
    ]) {
      expect(blockedAddress(address), address).not.toBeNull();
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) {
      expect(blockedAddress(address), address).toBeNull();
    }
  });

  it('refuses ≥ 60 SSRF payloads with 422 and opens no connection to any blocked address', async () => {
    const list = payloads();
    expect(list.length).toBeGreaterThanOrEqual(60);
    for (const url of list) {
      const response = await fetchRepo(url);
      expect(response.statusCode, `${url}: ${response.body}`).toBe(422);
      expect(String(response.json().detail), url).toMatch(/refused/);
    }
    expect(trap.connections).toEqual([]);
    // The only TLS connections made went to the allow-listed host (its redirects were followed, then refused).
    expect(connects.length).toBeGreaterThan(0);
    for (const connect of connects) expect(connect).toMatchObject({ host: '127.0.0.1', servername: 'repo.test', port: repo.port });
    const stored = await context.storage.db
      .selectFrom('object_workspace_repositories')
      .selectAll()
      .where('customer_id', '=', alice.customerId)
      .execute();
    expect(stored).toEqual([]);
  });

  it('the allow-listed host works, also through a redirect to itself, with the connection pinned to the checked address', async () => {
    connects.length = 0;
    const response = await fetchRepo(`https://repo.test:${repo.port}/redirect?to=${encodeURIComponent('/ok.zip')}`, 'ok');
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({
      repository_name: 'ok',
      format: 'zip',
      files: 1,
      final_url: `https://repo.test:${repo.port}/ok.zip`,
    });
    expect(connects).toEqual([
      { host: '127.0.0.1', servername: 'repo.test', port: repo.port },
      { host: '127.0.0.1', servername: 'repo.test', port: repo.port },
    ]);
    expect(trap.connections).toEqual([]);
  });

  it('deny-listing and allow-only narrow the policy; the port rule applies to hosts not allow-listed', async () => {
    const narrow = await createTestContext({
      config: { desktop: { objectWorkspace: { allowHosts: ['repo.test'], denyHosts: ['repo.test', '93.184.216.0/24'] } } } as never,
    });
    try {
      narrow.services.objectWorkspace.resolve = async (host) => [
        { address: host === 'deny-by-address.test' ? '93.184.216.34' : '8.8.8.8', family: 4 },
      ];
      const bob = await signUp(narrow, 'bob');
      const call = (url: string) =>
        narrow.app.inject({
          method: 'POST',
          url: `/api/v1/assistant-desktop/object-workspace/repositories/x?sourceUrl=${encodeURIComponent(url)}`,
          headers: bearer(bob.systemToken),
        });
      for (const url of [`https://repo.test:${repo.port}/ok.zip`, 'https://deny-by-address.test/x.zip', 'https://93.184.216.34/x.zip']) {
        const denied = await call(url);
        expect(denied.statusCode, url).toBe(422);
        expect(denied.json().detail, url).toMatch(/not allowed/);
      }
      const port = await call('https://public.example:8443/x.zip');
      expect(port.statusCode).toBe(422);
      expect(port.json().detail).toMatch(/port 8443 is not allowed/);
    } finally {
      await narrow.close();
    }
    const policy = {
      allowHosts: ['*.repo.test'],
      denyHosts: [],
      onlyAllowHosts: true,
      ports: [443],
      maxBytes: 1,
      maxRedirects: 0,
      timeoutMs: 1000,
    };
    const resolve = async () => [{ address: '8.8.8.8', family: 4 }];
    await expect(checkTarget(new URL('https://example.com/x.zip'), policy, resolve)).rejects.toThrow(/allow-list/);
    await expect(checkTarget(new URL('https://repo.test/x.zip'), policy, resolve)).rejects.toThrow(/allow-list/);
    await expect(checkTarget(new URL('https://mirror.repo.test:9/x.zip'), policy, resolve)).resolves.toMatchObject({
      address: '8.8.8.8',
      port: 9,
    });
    expect(trap.connections).toEqual([]);
  });
});

/**
 * The same refusal with the service's own resolver (`dns.promises.lookup`, nothing stubbed): `localhost` in any
 * spelling resolves to loopback through the system's resolver, and the fetch is refused before any connection.
 */
describe('object-workspace repository fetch: SSRF refusals through the system resolver', () => {
  let context: TestContext;
  let trap: Trap;
  let alice: SignedUp;
  const connects: { host?: string; port?: number }[] = [];

  beforeAll(async () => {
    trap = await startTrap();
    context = await createTestContext({
      config: { desktop: { objectWorkspace: { ports: [], maxRedirects: 3, timeoutMs: 10_000 } } } as never,
    });
    alice = await signUp(context, 'alice');
    const original = tls.connect.bind(tls);
    vi.spyOn(tls, 'connect').mockImplementation(((options: tls.ConnectionOptions) => {
      connects.push({ host: options.host, port: options.port });
      return original(options);
    }) as never);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await context.close();
    await trap.close();
  });

  it('keeps the default resolver and refuses localhost, localhost. and LOCALHOST as loopback', async () => {
    expect(context.services.objectWorkspace.resolve).toBe(systemResolver);
    // The system resolver really answers loopback for the name, so the refusal below is the address check's.
    expect((await systemResolver('localhost')).map(({ address }) => blockedAddress(address))).not.toContain(null);
    for (const host of ['localhost', 'localhost.', 'LOCALHOST', 'LocalHost.']) {
      const url = `https://${host}:${trap.port}/repo.zip`;
      const response = await context.app.inject({
        method: 'POST',
        url: `/api/v1/assistant-desktop/object-workspace/repositories/target?sourceUrl=${encodeURIComponent(url)}`,
        headers: bearer(alice.systemToken),
      });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(422);
      expect(response.json().detail, url).toMatch(/refused: the host resolves to a non-public address \(loopback/);
    }
    expect(trap.connections).toEqual([]);
    expect(connects).toEqual([]);
    const stored = await context.storage.db
      .selectFrom('object_workspace_repositories')
      .selectAll()
      .where('customer_id', '=', alice.customerId)
      .execute();
    expect(stored).toEqual([]);
  });
});
