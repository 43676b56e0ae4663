/**
 * Real agent turns (real app-servers in bubblewrap, the scripted upstream answering with a shell command) try the
 * host's network from inside the sandbox: PostgreSQL, Redis and a raw TCP connect to every port listening on the
 * host's loopback (the service's own HTTP port and a metrics listener included) all fail, while the turn itself
 * (its model calls through the bridged socket), shell commands and apply_patch work. With egress through the
 * proxy an allowed domain (a local test server the operator maps by name) is reached and nothing else; with
 * `networkAccess: false` or egress off, nothing outside is.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { tempDir } from '../helpers/databases.js';
import { startModelUpstream, type ModelUpstream, type RecordedRequest, type Reply } from '../fakes/model-upstream.js';
import { dataOf, gatewayConfig, harnessFor, type AgentHarness } from '../agent/agent-harness.js';
import { startMetricsServer, type MetricsServer } from '../../src/metrics/server.js';
import { EGRESS_BRIDGE_PORT, MODEL_BRIDGE_PORT } from '../../src/appserver/sandbox-network.js';
import { environOf, SANDBOX_UNAVAILABLE, UID_FIRST } from './sandbox-support.js';

const operator = { kind: 'operator', source: 'static', keyId: null } as const;
const ALLOWED = 'allowed.switchyard.test';
const WILDCARD = 'api.mirror.switchyard.test';
const DENIED = 'denied.switchyard.test';
const SITE_MARKER = 'egress-test-site-4b1d';

/** Calls the tool once per turn (the thread's history holds earlier turns' tool results), then answers text. */
function afterLastOutput(tool: Reply): (request: RecordedRequest) => Reply {
  return (request) => {
    const input = request.body?.input;
    const last = Array.isArray(input) ? input[input.length - 1] : undefined;
    return typeof last?.type === 'string' && last.type.endsWith('_output') ? { kind: 'text', text: 'Done.' } : tool;
  };
}

/** Every TCP port listening on the host's loopback (127.0.0.1, ::1 or a wildcard address), read at call time. */
function hostLoopbackPorts(): number[] {
  const ports = new Set<number>();
  for (const [file, loopback, wildcard] of [
    ['/proc/net/tcp', '0100007F', '00000000'],
    ['/proc/net/tcp6', '00000000000000000000000001000000', '00000000000000000000000000000000'],
  ] as const) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== '0A') continue;
      const [address, port] = fields[1]!.split(':');
      if (address === wildcard || address === loopback || address!.startsWith('7F')) ports.add(parseInt(port!, 16));
      // An IPv4-mapped 127.x listener in tcp6.
      if (address!.startsWith('0000000000000000FFFF00007F')) ports.add(parseInt(port!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** A small site the egress tests reach through the proxy; it records the Host header of each request. */
async function startSite(): Promise<{ port: number; hosts: string[]; close(): Promise<void> }> {
  const hosts: string[] = [];
  const server = http.createServer((request, response) => {
    hosts.push(String(request.headers.host));
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`${SITE_MARKER} ${request.url}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    hosts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Running {
  harness: AgentHarness;
  context: TestContext;
  upstream: ModelUpstream;
}

async function startService(prefix: string, egress: object): Promise<Running> {
  const dataDir = tempDir(prefix);
  const upstream = await startModelUpstream();
  const context = await createTestContext({
    config: {
      ...gatewayConfig(upstream.url),
      agent: { requestTimeoutMs: 30_000, stopGraceMs: 500, isolationUidFirst: UID_FIRST, egress },
    } as never,
    env: { SWITCHYARD_DATA_DIR: dataDir },
  });
  await context.listen();
  const customer = await newCustomer(context, 'net');
  return { harness: harnessFor(context, upstream, customer), context, upstream };
}

async function newCustomer(context: TestContext, tag: string) {
  const email = `${tag}-${Math.random().toString(36).slice(2)}@example.com`;
  const created = await context.services.customers.create({ email });
  await context.services.billing.adjust({
    customerId: created.customer.id,
    amountMicros: 100_000_000,
    reason: 'sandbox network tests',
    wallet: 'token',
    idempotencyKey: `sandbox-net-${created.customer.id}`,
  });
  return { id: created.customer.id, email, token: created.systemToken.key, headers: bearer(created.systemToken.key) };
}

async function openProject(harness: AgentHarness, headers = harness.customer.headers) {
  const projectId = await harness.createProject(headers);
  const project = await harness.context.services.projects.requireOwned(operator, projectId);
  const opened = await harness.context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers });
  expect(opened.statusCode, opened.body).toBe(200);
  return { projectId, workspace: project.workspaceDir };
}

/** Runs one shell command as a real turn (extra turn fields such as a sandbox policy allowed) and waits for its end. */
async function runCommand(harness: AgentHarness, projectId: string, workspace: string, command: string, turn: object = {}) {
  harness.upstream.setDefault(
    afterLastOutput({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: command, workdir: workspace }) }),
  );
  const started = await harness.context.app.inject({
    method: 'POST',
    url: `/api/v1/projects/${projectId}/turns`,
    headers: harness.customer.headers,
    payload: { input: 'run it', ...turn },
  });
  expect(started.statusCode, started.body).toBe(202);
  const completed = await harness.waitForEvent(
    projectId,
    (event) => event.type === 'turn/completed' && dataOf(event).turn.id === started.json().turn_id,
    60_000,
  );
  expect(dataOf(completed).turn.status).toBe('completed');
}

/** A python3 script printing `open <port>` or `closed <port>` for a TCP connect to each loopback port. */
function connectScript(ports: number[]): string {
  return [
    'import socket',
    `for port in ${JSON.stringify(ports)}:`,
    '    for host in ("127.0.0.1", "::1"):',
    '        try:',
    '            socket.create_connection((host, port), timeout=3).close()',
    '            print("open", host, port, flush=True)',
    '        except OSError as error:',
    '            print("closed", host, port, error.errno, flush=True)',
  ].join('\n');
}

const curl = (args: string) => `curl -sS --max-time 10 ${args}`;

const title =
  SANDBOX_UNAVAILABLE === null
    ? 'agent sandbox network (bubblewrap): nothing of the host, egress only through the proxy'
    : `agent sandbox network — skipped: bubblewrap unavailable (${SANDBOX_UNAVAILABLE})`;

describe.skipIf(SANDBOX_UNAVAILABLE !== null)(title, () => {
  let running: Running;
  let site: Awaited<ReturnType<typeof startSite>>;
  let metrics: MetricsServer;

  beforeAll(async () => {
    site = await startSite();
    running = await startService('switchyard-net-', {
      mode: 'proxy',
      allowedDomains: [ALLOWED, '*.mirror.switchyard.test', 'localhost'],
      // The operator's names for the test site; DENIED is mapped but not allowed.
      hosts: { [ALLOWED]: '127.0.0.1', [WILDCARD]: '127.0.0.1', [DENIED]: '127.0.0.1' },
    });
    metrics = await startMetricsServer(running.context.services.serviceMetrics, '127.0.0.1:0');
  }, 120_000);

  afterAll(async () => {
    await metrics?.close();
    await running?.harness.close();
    await site?.close();
  });

  it('a turn reaches no database, no Redis and no port of the host loopback; the turn itself, commands and apply_patch work', async () => {
    const { harness } = running;
    const { projectId, workspace } = await openProject(harness);
    const ports = hostLoopbackPorts();
    const servicePort = Number(new URL(harness.context.services.agent.serviceUrl()).port);
    const metricsPort = Number(new URL(metrics.url).port);
    for (const port of [5432, 6379, servicePort, metricsPort, site.port]) expect(ports).toContain(port);
    // The sandbox's own bridges listen on these ports inside; a host port with the same number proves nothing.
    const probed = ports.filter((port) => port !== MODEL_BRIDGE_PORT && port !== EGRESS_BRIDGE_PORT);
    fs.writeFileSync(path.join(workspace, 'connect.py'), connectScript(probed));
    const script = [
      'exec > network.txt 2>&1',
      'echo "== psql"; psql -h 127.0.0.1 -U postgres -c "select 1" -w; echo "psql exit $?"',
      'echo "== redis"; redis-cli -h 127.0.0.1 ping; echo "redis exit $?"',
      'echo "== bash"; bash -c "exec 3<>/dev/tcp/127.0.0.1/5432" ; echo "bash exit $?"',
      'echo "== connect"; python3 connect.py',
      'echo "== done"',
    ].join('\n');
    await runCommand(harness, projectId, workspace, script);
    const output = fs.readFileSync(path.join(workspace, 'network.txt'), 'utf8');
    expect(output).toContain('== done');
    expect(output).toMatch(/psql exit [1-9]/);
    expect(output).not.toMatch(/\(1 row\)/);
    expect(output).toMatch(/redis exit [1-9]|Could not connect|Connection refused/);
    expect(output).not.toContain('PONG');
    expect(output).toMatch(/bash exit [1-9]/);
    const lines = output.split('\n').filter((line) => /^(open|closed) /.test(line));
    expect(lines).toHaveLength(probed.length * 2);
    expect(lines.filter((line) => line.startsWith('open '))).toEqual([]);

    // The turn's model calls went sandbox → socket → this service's /v1 → the scripted upstream.
    expect(harness.upstream.requests.filter((request) => request.path.endsWith('/responses')).length).toBeGreaterThanOrEqual(2);
    const patch = '*** Begin Patch\n*** Add File: patched.txt\n+patched in a sandbox without a network\n*** End Patch\n';
    harness.upstream.setDefault(afterLastOutput({ kind: 'custom_tool_call', name: 'apply_patch', input: patch }));
    const started = await harness.context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: harness.customer.headers,
      payload: { input: 'patch it' },
    });
    expect(started.statusCode).toBe(202);
    const completed = await harness.waitForEvent(
      projectId,
      (event) => event.type === 'turn/completed' && dataOf(event).turn.id === started.json().turn_id,
      60_000,
    );
    expect(dataOf(completed).turn.status).toBe('completed');
    expect(fs.readFileSync(path.join(workspace, 'patched.txt'), 'utf8')).toBe('patched in a sandbox without a network\n');
  }, 180_000);

  it('egress goes through the proxy to allowed domains only, never to a refused address, and not at all without networkAccess', async () => {
    const { harness } = running;
    const { projectId, workspace } = await openProject(harness);
    const at = (host: string) => `http://${host}:${site.port}`;
    const script = [
      'exec > egress.txt 2>&1',
      'echo "== env"; env | grep -i _proxy | sort',
      `echo "== allowed"; ${curl(`${at(ALLOWED)}/plain`)}; echo "allowed exit $?"`,
      `echo "== tunnel"; ${curl(`--proxytunnel ${at(WILDCARD)}/tunnel`)}; echo "tunnel exit $?"`,
      `echo "== python"; python3 -c "import urllib.request; print(urllib.request.urlopen('${at(ALLOWED)}/python', timeout=10).read().decode())"; echo "python exit $?"`,
      `echo "== denied"; ${curl(`-w "status %{http_code}\\n" ${at(DENIED)}/denied`)}; echo "denied exit $?"`,
      `echo "== denied tunnel"; ${curl(`--proxytunnel ${at(DENIED)}/denied-tunnel`)}; echo "denied tunnel exit $?"`,
      // Loopback names are not proxied by default (NO_PROXY): these ask the proxy all the same.
      `echo "== loopback by name"; env -u NO_PROXY -u no_proxy ${curl(`-w "status %{http_code}\\n" http://localhost:${site.port}/by-name`)}; echo "loopback exit $?"`,
      `echo "== ip literal"; env -u NO_PROXY -u no_proxy ${curl(`-w "status %{http_code}\\n" http://127.0.0.1:${site.port}/literal`)}; echo "literal exit $?"`,
      `echo "== no proxy"; ${curl(`--noproxy "*" ${at(ALLOWED)}/direct`)}; echo "direct exit $?"`,
      'echo "== done"',
    ].join('\n');
    await runCommand(harness, projectId, workspace, script);
    const output = fs.readFileSync(path.join(workspace, 'egress.txt'), 'utf8');
    expect(output).toContain('== done');
    expect(output).toContain(`HTTPS_PROXY=http://127.0.0.1:${EGRESS_BRIDGE_PORT}`);
    expect(output).toContain(`${SITE_MARKER} /plain`);
    expect(output).toContain('allowed exit 0');
    expect(output).toContain(`${SITE_MARKER} /tunnel`);
    expect(output).toContain('tunnel exit 0');
    expect(output).toContain(`${SITE_MARKER} /python`);
    for (const refused of ['/denied', '/denied-tunnel', '/by-name', '/literal', '/direct'])
      expect(output).not.toContain(`${SITE_MARKER} ${refused}`);
    expect(output).toContain(`${DENIED} is not on the egress allow-list`);
    expect(output).toContain('status 403');
    expect(output).toMatch(/denied tunnel exit [1-9]/);
    expect(output).toContain('localhost resolves to a loopback address');
    expect(output).toContain('only host names on the allow-list');
    expect(output).toMatch(/direct exit [1-9]/);
    // The site saw the name the agent asked for, and only the allowed requests.
    expect(site.hosts).toEqual(expect.arrayContaining([`${ALLOWED}:${site.port}`, `${WILDCARD}:${site.port}`]));
    expect(site.hosts.every((host) => !host.startsWith(DENIED) && !host.startsWith('localhost') && !host.startsWith('127.'))).toBe(true);

    // A turn without network access (the spec's sandbox policy) gets nothing outside, even through the proxy.
    const before = site.hosts.length;
    const noNetwork = [
      'exec > no-network.txt 2>&1',
      `${curl(`${at(ALLOWED)}/no-network`)}; echo "plain exit $?"`,
      `${curl(`--proxytunnel ${at(ALLOWED)}/no-network-tunnel`)}; echo "tunnel exit $?"`,
      'echo "== done"',
    ].join('\n');
    await runCommand(harness, projectId, workspace, noNetwork, { sandboxPolicy: { type: 'workspaceWrite', networkAccess: false } });
    const denied = fs.readFileSync(path.join(workspace, 'no-network.txt'), 'utf8');
    expect(denied).toContain('== done');
    expect(denied).not.toContain(SITE_MARKER);
    expect(denied).toMatch(/plain exit [1-9]/);
    expect(denied).toMatch(/tunnel exit [1-9]/);
    expect(site.hosts.length).toBe(before);
    expect(harness.context.logs.join('')).toContain('network access is off for the running turn');

    // Once that turn completed, a turn with network access reaches the allowed domain again.
    await runCommand(harness, projectId, workspace, `${curl(`${at(ALLOWED)}/after`)} > after.txt 2>&1; echo "exit $?" >> after.txt`, {
      sandboxPolicy: { type: 'workspaceWrite', networkAccess: true },
    });
    const after = fs.readFileSync(path.join(workspace, 'after.txt'), 'utf8');
    expect(after).toContain(`${SITE_MARKER} /after`);
    expect(after).toContain('exit 0');
  }, 180_000);

  it("a request on a customer's model socket acts for that customer only, and reaches /v1 only", async () => {
    const { harness, context } = running;
    const other = await newCustomer(context, 'net-other');
    await openProject(harness, other.headers);
    await openProject(harness);
    const otherServer = context.services.agent.supervisor.peek(other.id)!;
    const ownServer = context.services.agent.supervisor.peek(harness.customer.id)!;
    const otherToken = environOf(otherServer.pid!, 'SWITCHYARD_AGENT_TOKEN')!;
    const ownToken = environOf(ownServer.pid!, 'SWITCHYARD_AGENT_TOKEN')!;
    const socket = path.join(context.config.env.dataDir, 'sandbox-sockets', `${other.id}.model.sock`);
    expect(fs.statSync(socket).isSocket()).toBe(true);
    expect(fs.statSync(socket).mode & 0o777).toBe(0o600);
    const get = (url: string, token: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = http.get({ socketPath: socket, path: url, headers: { authorization: `Bearer ${token}` } }, (response) => {
          let body = '';
          response.on('data', (chunk) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body }));
        });
        request.on('error', reject);
      });
    // The customer's own key passes; its runtime credential passes the socket check (and is then refused for want
    // of a running turn, as everywhere).
    expect((await get('/v1/models', other.token)).status).toBe(200);
    const ownRuntime = await get('/v1/models', otherToken);
    expect(ownRuntime.body).not.toContain('does not belong to the account');
    // Another customer's key or runtime credential is refused on this socket.
    for (const token of [ownToken, harness.customer.token]) {
      const foreign = await get('/v1/models', token);
      expect(foreign.status, foreign.body).toBe(403);
      expect(foreign.body).toContain('does not belong to the account');
    }
    expect((await get('/api/v1/me', other.token)).status).toBe(404);
    // The socket goes when the app-server stops.
    await context.services.agent.supervisor.stop(other.id);
    expect(fs.existsSync(socket)).toBe(false);
  }, 120_000);
});

describe.skipIf(SANDBOX_UNAVAILABLE !== null)('agent sandbox network with egress off (bubblewrap)', () => {
  let running: Running;
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
    running = await startService('switchyard-net-off-', { mode: 'off', allowedDomains: [ALLOWED], hosts: { [ALLOWED]: '127.0.0.1' } });
  }, 120_000);

  afterAll(async () => {
    await running?.harness.close();
    await site?.close();
  });

  it('a turn has no proxy and reaches nothing outside', async () => {
    const { harness, context } = running;
    const { projectId, workspace } = await openProject(harness);
    const script = [
      'exec > off.txt 2>&1',
      'echo "== env"; env | grep -ci _proxy',
      `echo "== via the port"; ${curl(`-x http://127.0.0.1:${EGRESS_BRIDGE_PORT} http://${ALLOWED}:${site.port}/off`)}; echo "proxy exit $?"`,
      `echo "== direct"; ${curl(`http://${ALLOWED}:${site.port}/direct`)}; echo "direct exit $?"`,
      `echo "== site port"; ${curl(`http://127.0.0.1:${site.port}/loopback`)}; echo "loopback exit $?"`,
      'echo "== done"',
    ].join('\n');
    await runCommand(harness, projectId, workspace, script);
    const output = fs.readFileSync(path.join(workspace, 'off.txt'), 'utf8');
    expect(output).toContain('== done');
    expect(output).toMatch(/== env\n0\n/);
    expect(output).not.toContain(SITE_MARKER);
    expect(output).toMatch(/proxy exit [1-9]/);
    expect(output).toMatch(/direct exit [1-9]/);
    expect(output).toMatch(/loopback exit [1-9]/);
    expect(site.hosts).toEqual([]);
    expect(fs.existsSync(path.join(context.config.env.dataDir, 'sandbox-sockets', `${harness.customer.id}.egress.sock`))).toBe(false);
  }, 120_000);
});
