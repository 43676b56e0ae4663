/**
 * Real agent turns attack the files the service (root) touches in the trees the agent can write: links and FIFOs
 * planted under the names the service used to write in the Codex home, then an app-server restart; the files API
 * on a FIFO and on links; a coder project deleted while a background loop left by an earlier turn swaps a
 * sub-folder for a link to a root-owned folder outside. Nothing outside the tenant's tree changes, no route
 * hangs, and every answer is a 2xx or a clear 4xx.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext } from '../helpers/context.js';
import { tempDir } from '../helpers/databases.js';
import { solvedHumanCheck } from '../helpers/human-check.js';
import { startModelUpstream, type RecordedRequest, type Reply } from '../fakes/model-upstream.js';
import { dataOf, gatewayConfig, harnessFor, type AgentHarness } from '../agent/agent-harness.js';
import { IS_ROOT, SANDBOX_UNAVAILABLE, UID_FIRST } from './sandbox-support.js';

const operator = { kind: 'operator', source: 'static', keyId: null } as const;
const SECRET = 'root-only-secret-0600-unchanged\n';
const VICTIM_FILES = 200;

/** Calls the tool once per turn (the thread's history holds earlier turns' tool results), then answers text. */
function afterLastOutput(tool: Reply): (request: RecordedRequest) => Reply {
  return (request) => {
    const input = request.body?.input;
    const last = Array.isArray(input) ? input[input.length - 1] : undefined;
    return typeof last?.type === 'string' && last.type.endsWith('_output') ? { kind: 'text', text: 'Done.' } : tool;
  };
}

/** Resolves with the answer, or fails when it takes longer than `ms` (a blocked thread pool never answers). */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(done: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Processes running as `uid` on the host, with their command lines. */
function processesOf(uid: number): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (fs.statSync(`/proc/${pid}`).uid !== uid) continue;
      found.push(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

const title =
  SANDBOX_UNAVAILABLE === null && IS_ROOT
    ? 'agent sandbox (bubblewrap, root): the files the service touches in tenant trees'
    : `files the service touches in tenant trees — skipped: ${SANDBOX_UNAVAILABLE ?? 'the service does not run as root here'}`;

describe.skipIf(SANDBOX_UNAVAILABLE !== null || !IS_ROOT)(title, () => {
  let harness: AgentHarness;
  let dataDir: string;
  let outsideDir: string;
  let secretFile: string;
  const b = { id: 0, headers: { authorization: '' }, workspace: '' };

  const inject = (options: Parameters<AgentHarness['context']['app']['inject']>[0]) => harness.context.app.inject(options);
  const post = (url: string, headers: { authorization: string }, payload?: object) =>
    inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload }) });

  /** Runs one shell command as a real turn of the project and returns when the turn completed. */
  async function runCommand(projectId: string, workspace: string, command: string, headers = harness.customer.headers): Promise<void> {
    harness.upstream.setDefault(
      afterLastOutput({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: command, workdir: workspace }) }),
    );
    const started = await post(`/api/v1/projects/${projectId}/turns`, headers, { input: 'run it' });
    expect(started.statusCode, started.body).toBe(202);
    const completed = await harness.waitForEvent(
      projectId,
      (event) => event.type === 'turn/completed' && dataOf(event).turn.id === started.json().turn_id,
      90_000,
    );
    expect(dataOf(completed).turn.status).toBe('completed');
  }

  /** Runs a longer script as a turn; it ends by writing `marker`, which may come after the turn (a yielded command). */
  async function runScript(projectId: string, workspace: string, script: string, headers = harness.customer.headers): Promise<void> {
    const marker = path.join(workspace, `done-${Math.random().toString(36).slice(2)}`);
    await runCommand(projectId, workspace, `${script}\necho done > ${marker}`, headers);
    await waitFor(() => fs.existsSync(marker), 120_000, 'the script to finish');
  }

  async function openProject(headers: { authorization: string }) {
    const projectId = await harness.createProject(headers);
    const project = await harness.context.services.projects.requireOwned(operator, projectId);
    const opened = await post(`/api/v1/projects/${projectId}/open`, headers);
    expect(opened.statusCode, opened.body).toBe(200);
    return { projectId, workspace: project.workspaceDir };
  }

  /** Kills the customer's app-server the way a crash would; the next turn starts a new one. */
  async function killAppServer(customerId: number): Promise<void> {
    const server = harness.context.services.agent.supervisor.peek(customerId);
    expect(server?.pid).toBeGreaterThan(0);
    process.kill(server!.pid!, 'SIGKILL');
    const deadline = Date.now() + 20_000;
    while (harness.context.services.agent.supervisor.peek(customerId)?.pid === server!.pid && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
  }

  /** Registration, login and a files read answer promptly (argon2 and file reads use the thread pool). */
  async function serviceAnswers(projectId: string): Promise<void> {
    const email = `prompt-${Math.random().toString(36).slice(2)}@example.com`;
    const registered = await within(
      20_000,
      'registration',
      post(
        '/api/v1/customer/register',
        { authorization: '' },
        { email, password: 'a long password 1', humanCheck: await solvedHumanCheck(harness.context) },
      ),
    );
    expect(registered.statusCode, registered.body).toBe(201);
    const login = await within(
      20_000,
      'login',
      post('/api/v1/auth/login', { authorization: '' }, { email, password: 'a long password 1' }),
    );
    expect(login.statusCode, login.body).toBe(200);
    const tree = await within(
      10_000,
      'files tree',
      inject({ method: 'GET', url: `/api/v1/projects/${projectId}/files/tree`, headers: harness.customer.headers }),
    );
    expect(tree.statusCode, tree.body).toBe(200);
  }

  function outsideUnchanged(): void {
    expect(fs.readFileSync(secretFile, 'utf8')).toBe(SECRET);
    const stats = fs.statSync(secretFile);
    expect(stats.uid).toBe(0);
    expect(stats.mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(outsideDir)).toEqual(['secret']);
    expect(fs.readdirSync(b.workspace).filter((name) => name.startsWith('planted'))).toEqual([]);
  }

  beforeAll(async () => {
    dataDir = fs.realpathSync(tempDir('switchyard-tenant-files-'));
    outsideDir = fs.realpathSync(tempDir('switchyard-outside-'));
    fs.chmodSync(outsideDir, 0o700);
    secretFile = path.join(outsideDir, 'secret');
    fs.writeFileSync(secretFile, SECRET, { mode: 0o600 });
    const upstream = await startModelUpstream();
    const context = await createTestContext({
      config: {
        ...gatewayConfig(upstream.url),
        // Sign-up is one of the requests that must stay prompt: self-service registration, so open.
        accounts: { registration: 'open' },
        agent: { requestTimeoutMs: 30_000, stopGraceMs: 500, restartBackoffInitialMs: 50, isolationUidFirst: UID_FIRST },
      } as never,
      env: { SWITCHYARD_DATA_DIR: dataDir },
    });
    await context.listen();
    const customer = async (tag: string) => {
      const created = await context.services.customers.create({ email: `${tag}-${Math.random().toString(36).slice(2)}@example.com` });
      await context.services.billing.adjust({
        customerId: created.customer.id,
        amountMicros: 100_000_000,
        reason: 'sandbox tests',
        wallet: 'token',
        idempotencyKey: `tenant-files-${created.customer.id}`,
      });
      return { id: created.customer.id, token: created.systemToken.key, headers: bearer(created.systemToken.key) };
    };
    harness = harnessFor(context, upstream, await customer('tenant-a'));
    const other = await customer('tenant-b');
    b.id = other.id;
    b.headers = other.headers;
    b.workspace = (await openProject(other.headers)).workspace;
  }, 180_000);

  afterAll(async () => {
    await harness?.close();
  });

  it('links and FIFOs planted under the catalog names, then a restart: nothing outside changes, nothing hangs', async () => {
    const { projectId, workspace } = await openProject(harness.customer.headers);
    const id = harness.customer.id;
    const codexHome = path.join(dataDir, 'codex-homes', String(id));
    const catalog = path.join(dataDir, 'agent-runtime', String(id), 'model-catalog.json');
    // What the service writes for the app-server is in a folder of its own that the sandbox sees read-only.
    expect(fs.statSync(catalog).uid).toBe(0);
    expect(fs.existsSync(path.join(codexHome, 'model-catalog.json'))).toBe(false);
    const low = Math.max(process.pid - 40, 2);
    const high = process.pid + 40;
    // One python process plants every name fast (a yielded shell loop would be cut at the end of its turn).
    const plant = (kind: 'link' | 'fifo', target = '') =>
      [
        `python3 - <<'EOF'`,
        'import os, shutil',
        `for folder in [${JSON.stringify(codexHome)}, ${JSON.stringify(workspace)}]:`,
        `    for name in ['model-catalog.json'] + ['model-catalog.json.%d.tmp' % p for p in range(${low}, ${high + 1})]:`,
        '        f = os.path.join(folder, name)',
        '        if os.path.lexists(f) and not os.path.isdir(f) or os.path.islink(f): os.unlink(f)',
        kind === 'link' ? `        os.symlink(${JSON.stringify(target)}, f)` : '        os.mkfifo(f)',
        `tmp = os.path.join(${JSON.stringify(codexHome)}, 'tmp')`,
        'if os.path.islink(tmp): os.unlink(tmp)',
        'elif os.path.isdir(tmp): shutil.rmtree(tmp)',
        `os.symlink(${JSON.stringify(outsideDir)}, tmp)`,
        'EOF',
        // The app-server cannot touch the service's copy: it is bound read-only.
        `echo x > ${catalog} 2> catalog-write.txt || echo refused >> catalog-write.txt`,
      ].join('\n');

    // Links to a root-owned 0600 file outside every sandbox.
    await runScript(projectId, workspace, plant('link', secretFile));
    expect(fs.readFileSync(path.join(workspace, 'catalog-write.txt'), 'utf8')).toContain('refused');
    expect(fs.lstatSync(path.join(codexHome, `model-catalog.json.${process.pid}.tmp`)).isSymbolicLink()).toBe(true);
    await killAppServer(id);
    await runCommand(projectId, workspace, 'echo after-restart > restarted.txt');
    expect(fs.readFileSync(path.join(workspace, 'restarted.txt'), 'utf8')).toBe('after-restart\n');
    outsideUnchanged();

    // Dangling links into another customer's workspace.
    await runScript(projectId, workspace, plant('link', `${b.workspace}/planted-by-a.json`));
    await killAppServer(id);
    await runCommand(projectId, workspace, 'echo again > restarted.txt');
    outsideUnchanged();
    const bFiles = await inject({
      method: 'GET',
      url: `/api/v1/projects/${(await harness.context.services.projects.list(b.id))[0]!.id}/files/tree`,
      headers: b.headers,
    });
    expect(bFiles.json().entries.map((entry: { path: string }) => entry.path)).not.toContain('planted-by-a.json');

    // FIFOs under the same names: the restart and every route keep answering.
    await runScript(projectId, workspace, plant('fifo'));
    expect(fs.lstatSync(path.join(codexHome, `model-catalog.json.${process.pid}.tmp`)).isFIFO()).toBe(true);
    await killAppServer(id);
    await within(90_000, 'a turn after the restart', runCommand(projectId, workspace, 'echo fifo-round > restarted.txt'));
    await serviceAnswers(projectId);
    outsideUnchanged();
    expect(fs.statSync(catalog).uid).toBe(0);
    expect(JSON.parse(fs.readFileSync(catalog, 'utf8')).models.length).toBeGreaterThan(0);
  }, 400_000);

  it('the files API answers a FIFO and links out with a clear 4xx, promptly', async () => {
    const { projectId, workspace } = await openProject(harness.customer.headers);
    await runCommand(
      projectId,
      workspace,
      `mkfifo pipe && ln -s ${secretFile} link-out && ln -s ${outsideDir} folder-out && ln -s pipe link-pipe`,
    );
    const url = (query: string) => `/api/v1/projects/${projectId}/files/content?path=${encodeURIComponent(query)}`;
    const get = (name: string) =>
      within(10_000, `GET ${name}`, inject({ method: 'GET', url: url(name), headers: harness.customer.headers }));
    const put = (name: string) =>
      within(
        10_000,
        `PUT ${name}`,
        inject({
          method: 'PUT',
          url: `/api/v1/projects/${projectId}/files/content`,
          headers: harness.customer.headers,
          payload: { path: name, content: 'overwritten' },
        }),
      );
    for (const name of ['pipe', 'link-pipe']) {
      const read = await get(name);
      expect(read.statusCode, read.body).toBe(400);
      expect(read.body).toMatch(/not a regular file/);
      const written = await put(name);
      expect(written.statusCode, written.body).toBe(400);
    }
    for (const name of ['link-out', 'folder-out/secret']) {
      expect((await get(name)).statusCode).toBe(403);
      expect((await put(name)).statusCode).toBe(403);
    }
    expect(fs.lstatSync(path.join(workspace, 'pipe')).isFIFO()).toBe(true);
    await serviceAnswers(projectId);
    outsideUnchanged();
  }, 200_000);

  it('a coder project deleted while a background loop swaps a sub-folder for a link out: the outside files all remain', async () => {
    const victim = fs.realpathSync(tempDir('switchyard-victim-'));
    for (let index = 0; index < VICTIM_FILES; index++) fs.writeFileSync(path.join(victim, `file-${index}`), `root file ${index}\n`);
    const created = await post('/api/v1/desktop/coder/projects', harness.customer.headers, { name: 'swapped' });
    expect(created.statusCode, created.body).toBe(201);
    const projectId = created.json().project.project_id as string;
    const opened = await post(`/api/v1/projects/${projectId}/open`, harness.customer.headers);
    expect(opened.statusCode, opened.body).toBe(200);
    const workspace = (await harness.context.services.projects.requireOwned(operator, projectId)).workspaceDir;
    const loop = [
      `mkdir -p sub/deep && for i in $(seq 1 ${VICTIM_FILES}); do echo x > sub/file-$i; echo y > sub/deep/file-$i; done`,
      `setsid nohup sh -c 'cd ${workspace}; while :; do mv sub sub.real 2>/dev/null; ln -s ${victim} sub; rm -f sub; mv sub.real sub 2>/dev/null; done' < /dev/null > /dev/null 2>&1 &`,
      'sleep 1; echo started',
    ].join('\n');
    await runScript(projectId, workspace, loop);
    const uid = UID_FIRST + harness.customer.id;
    // The loop outlived its turn.
    await waitFor(() => processesOf(uid).some((command) => command.includes('while :')), 20_000, 'the background loop');

    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const removed = await inject({ method: 'DELETE', url: '/api/v1/desktop/coder/projects/swapped', headers: harness.customer.headers });
      statuses.push(removed.statusCode);
      expect(removed.statusCode, removed.body).toBeLessThan(500);
      if (removed.statusCode === 204) break;
    }
    expect(statuses.at(-1)).toBe(204);
    expect(fs.readdirSync(victim).length).toBe(VICTIM_FILES);
    for (let index = 0; index < VICTIM_FILES; index++)
      expect(fs.readFileSync(path.join(victim, `file-${index}`), 'utf8')).toBe(`root file ${index}\n`);
    expect(fs.existsSync(workspace)).toBe(false);
    // Stopping the app-server ended every process its turns left behind.
    expect(processesOf(uid).filter((command) => command.includes('while :'))).toEqual([]);
    // The customer's agent starts again for the next turn.
    const next = await openProject(harness.customer.headers);
    await runCommand(next.projectId, next.workspace, 'echo alive > alive.txt');
    expect(fs.readFileSync(path.join(next.workspace, 'alive.txt'), 'utf8')).toBe('alive\n');
  }, 300_000);
});
