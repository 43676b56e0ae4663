/**
 * Real agent turns (real app-servers in bubblewrap, the scripted upstream answering with a shell command) try
 * to reach what belongs to other tenants and to the operator, and find nothing; ordinary turns still work.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, STATIC_TOKEN } from '../helpers/context.js';
import { tempDir } from '../helpers/databases.js';
import { loadOrCreateSecret } from '../../src/config/load-config.js';
import { startModelUpstream, type RecordedRequest, type Reply } from '../fakes/model-upstream.js';
import { dataOf, harnessFor, gatewayConfig, type AgentHarness } from '../agent/agent-harness.js';
import { environOf, IS_ROOT, SANDBOX_UNAVAILABLE, UID_FIRST } from './sandbox-support.js';

const operator = { kind: 'operator', source: 'static', keyId: null } as const;
const PROVIDER_KEY = 'sk-provider-key-that-must-stay-with-the-service-0001';
const DECOY_DATABASE_URL = 'postgres://switchyard:db-password-never-shown@127.0.0.1:5432/prod';
const DECOY_REDIS_URL = 'redis://:redis-password-never-shown@127.0.0.1:6379/0';
const B_FILE_MARKER = 'customer-b-private-plans-7f3a9c';

/** Calls the tool once per turn (the thread's history holds earlier turns' tool results), then answers text. */
function afterLastOutput(tool: Reply): (request: RecordedRequest) => Reply {
  return (request) => {
    const input = request.body?.input;
    const last = Array.isArray(input) ? input[input.length - 1] : undefined;
    return typeof last?.type === 'string' && last.type.endsWith('_output') ? { kind: 'text', text: 'Done.' } : tool;
  };
}

const title =
  SANDBOX_UNAVAILABLE === null
    ? 'agent sandbox (bubblewrap): escapes find nothing'
    : `agent sandbox escapes — skipped: bubblewrap unavailable (${SANDBOX_UNAVAILABLE})`;

describe.skipIf(SANDBOX_UNAVAILABLE !== null)(title, () => {
  let harness: AgentHarness;
  let dataDir: string;
  let secret: string;
  let decoy: ChildProcess;
  const b = { id: 0, email: '', token: '', headers: { authorization: '' }, projectId: '', workspace: '', file: '', runtimeToken: '' };

  const post = (url: string, headers: { authorization: string }, payload?: object) =>
    harness.context.app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload }) });

  /** Runs one shell command as a real turn of the customer's project and returns when the turn completed. */
  async function runCommand(projectId: string, headers: { authorization: string }, workspace: string, command: string): Promise<void> {
    harness.upstream.setDefault(
      afterLastOutput({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: command, workdir: workspace }) }),
    );
    const started = await post(`/api/v1/projects/${projectId}/turns`, headers, { input: 'run it' });
    expect(started.statusCode, started.body).toBe(202);
    const completed = await harness.waitForEvent(
      projectId,
      (event) => event.type === 'turn/completed' && dataOf(event).turn.id === started.json().turn_id,
      60_000,
    );
    expect(dataOf(completed).turn.status).toBe('completed');
  }

  async function openProject(headers: { authorization: string }) {
    const projectId = await harness.createProject(headers);
    const project = await harness.context.services.projects.requireOwned(operator, projectId);
    const opened = await post(`/api/v1/projects/${projectId}/open`, headers);
    expect(opened.statusCode, opened.body).toBe(200);
    return { projectId, workspace: project.workspaceDir };
  }

  beforeAll(async () => {
    // The static operator token comes from a file in the data dir; the secret is generated into the data dir.
    dataDir = tempDir('switchyard-escape-');
    const tokenFile = path.join(dataDir, 'operator-token');
    fs.writeFileSync(tokenFile, `${STATIC_TOKEN}\n`, { mode: 0o600 });
    const upstream = await startModelUpstream();
    const context = await createTestContext({
      config: {
        ...gatewayConfig(upstream.url),
        agent: { requestTimeoutMs: 30_000, stopGraceMs: 500, isolationUidFirst: UID_FIRST },
      } as never,
      env: { SWITCHYARD_DATA_DIR: dataDir, SWITCHYARD_STATIC_TOKEN: '', SWITCHYARD_STATIC_TOKEN_FILE: tokenFile, SWITCHYARD_SECRET: '' },
    });
    await context.listen();
    // Generated into the data dir as the service does at start without SWITCHYARD_SECRET.
    secret = loadOrCreateSecret(context.config.env);
    expect(fs.readFileSync(path.join(dataDir, 'secret'), 'utf8').trim()).toBe(secret);
    expect(secret.length).toBeGreaterThanOrEqual(32);

    const customer = async (tag: string) => {
      const email = `${tag}-${Math.random().toString(36).slice(2)}@example.com`;
      const created = await context.services.customers.create({ email });
      await context.services.billing.adjust({
        customerId: created.customer.id,
        amountMicros: 100_000_000,
        reason: 'sandbox tests',
        wallet: 'token',
        idempotencyKey: `sandbox-${created.customer.id}`,
      });
      return { id: created.customer.id, email, token: created.systemToken.key, headers: bearer(created.systemToken.key) };
    };
    const a = await customer('tenant-a');
    harness = harnessFor(context, upstream, a);

    // Customer B: a private file in its workspace and a running app-server holding B's runtime key.
    Object.assign(b, await customer('tenant-b'));
    const opened = await openProject(b.headers);
    b.projectId = opened.projectId;
    b.workspace = opened.workspace;
    b.file = path.join(b.workspace, 'plans.txt');
    fs.writeFileSync(b.file, `${B_FILE_MARKER}\n`);
    const bServer = context.services.agent.supervisor.peek(b.id)!;
    b.runtimeToken = environOf(bServer.pid!, 'SWITCHYARD_AGENT_TOKEN')!;
    expect(b.runtimeToken).toMatch(/^sy/);

    // A process of the service's user started with the service's secrets in its environment.
    decoy = spawn('sleep', ['600'], {
      stdio: 'ignore',
      env: {
        PATH: process.env.PATH,
        SWITCHYARD_STATIC_TOKEN: STATIC_TOKEN,
        SWITCHYARD_SECRET: secret,
        OPENAI_API_KEY: PROVIDER_KEY,
        DATABASE_URL: DECOY_DATABASE_URL,
        REDIS_URL: DECOY_REDIS_URL,
      },
    });
    expect(environOf(decoy.pid!, 'OPENAI_API_KEY')).toBe(PROVIDER_KEY);
  }, 120_000);

  afterAll(async () => {
    decoy?.kill('SIGKILL');
    await harness?.close();
  });

  it('a turn of customer A reads nothing of B, of the operator, of the service or of other processes', async () => {
    const { projectId, workspace } = await openProject(harness.customer.headers);
    const aServer = harness.context.services.agent.supervisor.peek(harness.customer.id)!;
    const aRuntimeToken = environOf(aServer.pid!, 'SWITCHYARD_AGENT_TOKEN')!;
    const storageFile = harness.context.storage.location.sqlitePath;
    const targets = {
      servicePid: process.pid,
      decoyPid: decoy.pid!,
      bAppServerPid: harness.context.services.agent.supervisor.peek(b.id)!.pid!,
    };
    const script = [
      'exec > escape.txt 2>&1',
      'echo "== uid $(id -u) gid $(id -g)"',
      'echo "== pids $(ls /proc | grep -E "^[0-9]+$" | tr "\\n" " ")"',
      'echo "== every environ"; for f in /proc/[0-9]*/environ; do echo "-- $f"; tr "\\0" "\\n" < "$f"; done',
      `echo "== host pids"; for p in ${targets.servicePid} ${targets.decoyPid} ${targets.bAppServerPid}; do tr "\\0" "\\n" < /proc/$p/environ; cat /proc/$p/cmdline; done`,
      `echo "== other workspace"; cat ${b.file}; ls -la ${b.workspace} ${path.dirname(b.workspace)} ${dataDir}/workspaces`,
      `echo "== data dir"; ls -la ${dataDir} ${dataDir}/codex-homes; cat ${dataDir}/secret ${dataDir}/operator-token ${dataDir}/switchyard.sqlite ${storageFile ?? '/nonexistent.sqlite'}`,
      `echo "== other home"; ls -la ${dataDir}/codex-homes/${b.id}; cat ${dataDir}/codex-homes/${b.id}/config.toml`,
      'echo "== root"; ls -la / /tmp /root /home /var /run 2>&1',
      'echo "== own env"; env',
      'echo "== done"',
    ].join('\n');
    await runCommand(projectId, harness.customer.headers, workspace, script);
    const output = fs.readFileSync(path.join(workspace, 'escape.txt'), 'utf8');

    // The script ran to its end, inside the sandbox.
    expect(output).toContain('== done');
    if (IS_ROOT) expect(output).toContain(`== uid ${UID_FIRST + harness.customer.id} gid ${UID_FIRST + harness.customer.id}`);
    const pids = output
      .match(/== pids ([\d ]*)/)![1]!
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(pids.length).toBeLessThan(20);
    for (const pid of Object.values(targets)) expect(pids).not.toContain(pid);

    // Nothing of customer B.
    expect(output).not.toContain(B_FILE_MARKER);
    expect(output).not.toContain(b.runtimeToken);
    expect(output).not.toContain(b.email);
    expect(output).toContain(`${b.file}: No such file or directory`);
    // Nothing of the operator or the service.
    for (const hidden of [
      STATIC_TOKEN,
      secret,
      PROVIDER_KEY,
      DECOY_DATABASE_URL,
      DECOY_REDIS_URL,
      'sk-upstream',
      harness.customer.token,
      b.token,
    ]) {
      expect(output).not.toContain(hidden);
    }
    expect(output).toContain(`${dataDir}/secret: No such file or directory`);
    expect(output).toContain(`${dataDir}/operator-token: No such file or directory`);
    // The only runtime key in sight is A's own (its app-server's environment, as before).
    const keys = new Set(output.match(/sy[a-z]?_[A-Za-z0-9]{20,}/g) ?? []);
    for (const key of keys) expect(key).toBe(aRuntimeToken);
    // The command's own environment holds none of the app-server's secrets.
    const ownEnv = output.slice(output.indexOf('== own env'));
    expect(ownEnv).not.toContain('SWITCHYARD_AGENT_TOKEN');
  }, 120_000);

  it('ordinary turns still work: shell commands, apply_patch, model calls and files written through the API', async () => {
    const { projectId, workspace } = await openProject(harness.customer.headers);
    const expectedUid = IS_ROOT ? UID_FIRST + harness.customer.id : process.getuid!();

    // A file written through the files API while the app-server runs is the agent's to change.
    const put = await harness.context.app.inject({
      method: 'PUT',
      url: `/api/v1/projects/${projectId}/files/content`,
      headers: harness.customer.headers,
      payload: { path: 'docs/notes.txt', content: 'from the API\n' },
    });
    expect(put.statusCode, put.body).toBeLessThan(300);

    await runCommand(
      projectId,
      harness.customer.headers,
      workspace,
      'echo hi > hello.txt && echo more >> docs/notes.txt && mkdir -p src && echo "$HOME" > home.txt && touch /tmp/scratch && ls /tmp > tmp.txt',
    );
    expect(fs.readFileSync(path.join(workspace, 'hello.txt'), 'utf8')).toBe('hi\n');
    expect(fs.readFileSync(path.join(workspace, 'docs/notes.txt'), 'utf8')).toBe('from the API\nmore\n');
    expect(fs.readFileSync(path.join(workspace, 'tmp.txt'), 'utf8')).toContain('scratch');
    expect(fs.statSync(path.join(workspace, 'hello.txt')).uid).toBe(expectedUid);

    const patch =
      '*** Begin Patch\n*** Add File: src/patched.txt\n+patched by the agent\n*** Update File: hello.txt\n@@\n-hi\n+hello\n*** End Patch\n';
    harness.upstream.setDefault(afterLastOutput({ kind: 'custom_tool_call', name: 'apply_patch', input: patch }));
    const started = await post(`/api/v1/projects/${projectId}/turns`, harness.customer.headers, { input: 'patch it' });
    expect(started.statusCode).toBe(202);
    const completed = await harness.waitForEvent(
      projectId,
      (event) => event.type === 'turn/completed' && dataOf(event).turn.id === started.json().turn_id,
      60_000,
    );
    expect(dataOf(completed).turn.status).toBe('completed');
    expect(fs.readFileSync(path.join(workspace, 'src/patched.txt'), 'utf8')).toBe('patched by the agent\n');
    expect(fs.readFileSync(path.join(workspace, 'hello.txt'), 'utf8')).toBe('hello\n');

    // Every model call of these turns went sandbox → this service's /v1 → the scripted upstream.
    const calls = harness.upstream.requests.filter((request) => request.path.endsWith('/responses'));
    expect(calls.length).toBeGreaterThanOrEqual(4);
    const text = await harness.waitForEvent(
      projectId,
      (event) => event.type === 'item/completed' && dataOf(event).item.type === 'agentMessage' && dataOf(event).item.text === 'Done.',
    );
    expect(text).toBeDefined();
    const status = await harness.context.app.inject({ method: 'GET', url: '/api/v1/agent/status', headers: bearer(STATIC_TOKEN) });
    expect(status.statusCode).toBe(200);
  }, 120_000);
});
