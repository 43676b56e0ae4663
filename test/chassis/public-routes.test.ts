import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareVersions, parseVersion } from '../../src/kernel/semver.js';
import { createTestContext, type TestContext } from '../helpers/context.js';

/** A local region health target: /ok answers 200, /down answers 503, /slow never answers in time. */
async function startHealthServer(): Promise<{ url: string; hits: () => number; maxInFlight: () => number; close: () => Promise<void> }> {
  let hits = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((request, response) => {
    hits += 1;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    response.on('close', () => (inFlight -= 1));
    // /ok and /down answer after 100 ms so that checks made one after another would never overlap.
    if (request.url === '/ok')
      setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'), 100);
    else if (request.url === '/down') setTimeout(() => response.writeHead(503).end('down'), 100);
    else if (request.url === '/slow') setTimeout(() => response.writeHead(200).end('late'), 3_000).unref();
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port with nothing listening (bound, then released). */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('semantic versions', () => {
  const order = [
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
    '1.0.1',
    '1.2.0',
    '1.10.0',
    '2.0.0',
  ];

  it('orders versions by semver precedence, prereleases included', () => {
    for (let i = 0; i < order.length - 1; i++) {
      expect(compareVersions(parseVersion(order[i]!)!, parseVersion(order[i + 1]!)!), `${order[i]} < ${order[i + 1]}`).toBe(-1);
      expect(compareVersions(parseVersion(order[i + 1]!)!, parseVersion(order[i]!)!)).toBe(1);
    }
    expect(compareVersions(parseVersion('1.0.0+build.1')!, parseVersion('1.0.0+build.2')!)).toBe(0);
    expect(compareVersions(parseVersion('v1.2.3')!, parseVersion('1.2.3')!)).toBe(0);
  });

  it('rejects malformed versions', () => {
    for (const bad of ['1.2', '1.2.3.4', '01.2.3', '1.2.3-', '1.2.3-01', 'one.two.three', '', '1.2.3-alpha..1', '1.2.3+']) {
      expect(parseVersion(bad), bad).toBeUndefined();
    }
  });
});

describe('public routes', () => {
  let context: TestContext;
  let health: Awaited<ReturnType<typeof startHealthServer>>;
  let deadPort: number;

  beforeAll(async () => {
    health = await startHealthServer();
    deadPort = await closedPort();
    context = await createTestContext({
      config: {
        server: { bodyLimitBytes: 1024 * 1024, regionCheckCacheMs: 60_000, regionCheckTimeoutMs: 500 },
        regions: [
          { id: 'london', name: 'London', apiBaseUrl: 'https://london.example', healthUrl: `${health.url}/ok` },
          { id: 'chicago', name: 'Chicago', apiBaseUrl: 'https://chicago.example', healthUrl: `http://127.0.0.1:${deadPort}/healthz` },
          { id: 'frankfurt', name: 'Frankfurt', apiBaseUrl: 'https://frankfurt.example', healthUrl: `${health.url}/down` },
          { id: 'tokyo', name: 'Tokyo', apiBaseUrl: 'https://tokyo.example', healthUrl: `${health.url}/slow` },
        ],
        releases: {
          cli: { version: '0.147.0', downloadUrl: 'https://downloads.example/cli', minimumVersion: '0.135.0' },
          launcherA: { version: '1.3.0-beta.2' },
          launcherB: { version: '2.0.0' },
        },
      },
    });
  });
  afterAll(async () => {
    await context.close();
    await health.close();
  });

  it('reports each region from its own health check, without a bearer, in parallel', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/v1/status/regions' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-request-id']).toBeTruthy();
    const byId = Object.fromEntries(response.json().regions.map((region: { id: string }) => [region.id, region]));
    expect(byId.london).toMatchObject({ name: 'London', available: true, status: 'available', api_base_url: 'https://london.example' });
    expect(byId.chicago).toMatchObject({ available: false, status: 'unavailable', reason: 'unreachable', latency_ms: null });
    expect(byId.frankfurt).toMatchObject({ available: false, reason: 'HTTP 503' });
    expect(byId.tokyo).toMatchObject({ available: false, reason: 'timeout' });
    expect(response.json().available).toEqual(['london']);
    expect(health.maxInFlight()).toBeGreaterThanOrEqual(3);
  });

  it('serves both region paths from one cached round of checks', async () => {
    const before = health.hits();
    const legacy = await context.app.inject({ method: 'GET', url: '/api/status/regions' });
    const versioned = await context.app.inject({ method: 'GET', url: '/api/v1/status/regions' });
    expect(legacy.statusCode).toBe(200);
    expect(legacy.json().regions).toEqual(versioned.json().regions);
    expect(health.hits()).toBe(before);
  });

  it('answers release metadata and compares versions semantically', async () => {
    const plain = await context.app.inject({ method: 'GET', url: '/api/v1/cli/version' });
    expect(plain.statusCode).toBe(200);
    expect(plain.json()).toMatchObject({
      product: 'cli',
      version: '0.147.0',
      download_url: 'https://downloads.example/cli',
      update_available: null,
    });

    const older = await context.app.inject({ method: 'GET', url: '/api/v1/cli/version?current=0.99.0' });
    // A string comparison would call 0.99.0 newer than 0.147.0.
    expect(older.json()).toMatchObject({ current_version: '0.99.0', update_available: true, update_required: true });
    const same = await context.app.inject({ method: 'GET', url: '/api/v1/cli/version?currentVersion=0.147.0' });
    expect(same.json()).toMatchObject({ update_available: false, update_required: false });

    const prerelease = await context.app.inject({ method: 'GET', url: '/api/v1/launcher-a/version?current=1.3.0-beta.11' });
    expect(prerelease.json().update_available).toBe(false);
    const earlierPrerelease = await context.app.inject({ method: 'GET', url: '/api/v1/launcher-a/version?current=1.3.0-alpha' });
    expect(earlierPrerelease.json().update_available).toBe(true);
    const releasedOlder = await context.app.inject({ method: 'GET', url: '/api/v1/launcher-b/version?current=2.0.0-rc.1' });
    expect(releasedOlder.json().update_available).toBe(true);
  });

  it('answers a malformed version with a 422 detail naming the query field', async () => {
    for (const field of ['current', 'currentVersion']) {
      const response = await context.app.inject({ method: 'GET', url: `/api/v1/launcher-b/version?${field}=1.2` });
      expect(response.statusCode).toBe(422);
      const body = response.json();
      expect(body.detail[0]).toMatchObject({ loc: ['query', field], type: 'string_pattern_mismatch' });
      expect(typeof body.detail[0].msg).toBe('string');
      expect(body.request_id).toBe(response.headers['x-request-id']);
    }
  });
});
