/**
 * Limits of a customer's sandbox, tried with real agent turns (real app-servers in bubblewrap, the scripted
 * upstream answering with a shell command): a fork bomb and a memory hog stay inside the customer's cgroup while
 * the service keeps answering, a write past the workspace quota fails, no user namespace can be made, the
 * seccomp-listed calls fail, no descriptor but stdio reaches the sandbox, left-over processes end (with the
 * app-server, and at turn end when configured), and two deployments with overlapping uid ranges cannot both run
 * agents.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppServerSandbox } from '../../src/appserver/sandbox.js';
import { deploymentName } from '../../src/appserver/cgroups.js';
import { claimUidRange } from '../../src/appserver/uid-ranges.js';
import type { SandboxLimitSettings } from '../../src/appserver/limits.js';
import { createTestContext } from '../helpers/context.js';
import { tempDir } from '../helpers/databases.js';
import { solvedHumanCheckAt } from '../helpers/human-check.js';
import { dataOf, startAgentHarness, type AgentHarness } from '../agent/agent-harness.js';
import type { RecordedRequest, Reply } from '../fakes/model-upstream.js';
import { IS_ROOT, SANDBOX_UNAVAILABLE } from './sandbox-support.js';
import { killProcessesOf, processesOf } from './uid-processes.js';

/** Uid ranges of this file's own (test files run in parallel, each with a customer 1). */
const UID_FIRST = 3_400_000;
const UID_FIRST_AT_TURN_END = 3_450_000;
const MiB = 1024 * 1024;
const LIMITS = { pids: 64, memoryBytes: 320 * MiB, tmpSizeBytes: 8 * MiB, workspaceQuotaBytes: 4 * MiB };

const operator = { kind: 'operator', source: 'static', keyId: null } as const;

const commandLine = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens a project of the harness's customer; its workspace folder. */
async function openProject(harness: AgentHarness): Promise<{ projectId: string; workspace: string }> {
  const projectId = await harness.createProject();
  const project = await harness.context.services.projects.requireOwned(operator, projectId);
  const opened = await harness.context.app.inject({
    method: 'POST',
    url: `/api/v1/projects/${projectId}/open`,
    headers: harness.customer.headers,
  });
  expect(opened.statusCode, opened.body).toBe(200);
  return { projectId, workspace: project.workspaceDir };
}

/** Calls the tool once per turn (the thread's history holds earlier turns' tool results), then answers text. */
function afterLastOutput(tool: Reply): (request: RecordedRequest) => Reply {
  return (request) => {
    const input = request.body?.input;
    const last = Array.isArray(input) ? input[input.length - 1] : undefined;
    return typeof last?.type === 'string' && last.type.endsWith('_output') ? { kind: 'text', text: 'Done.' } : tool;
  };
}

/** Runs one shell command as a real turn and waits for the turn to end with one of `statuses`. */
async function runCommand(
  harness: AgentHarness,
  projectId: string,
  workspace: string,
  command: string,
  statuses: string[] = ['completed'],
): Promise<void> {
  harness.upstream.setDefault(
    afterLastOutput({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: command, workdir: workspace }) }),
  );
  const started = await harness.context.app.inject({
    method: 'POST',
    url: `/api/v1/projects/${projectId}/turns`,
    headers: harness.customer.headers,
    payload: { input: 'run it' },
  });
  expect(started.statusCode, started.body).toBe(202);
  const completed = await harness.waitForEvent(
    projectId,
    (event) => event.type === 'turn/completed' && dataOf(event).turn.id === started.json().turn_id,
    90_000,
  );
  expect(statuses).toContain(dataOf(completed).turn.status);
}

const title =
  SANDBOX_UNAVAILABLE === null && IS_ROOT
    ? 'agent sandbox limits (bubblewrap, per-customer uid)'
    : `agent sandbox limits — skipped: ${SANDBOX_UNAVAILABLE ?? 'the service is not root'}`;

describe.skipIf(SANDBOX_UNAVAILABLE !== null || !IS_ROOT)(title, () => {
  let harness: AgentHarness;
  let project: { projectId: string; workspace: string };
  let uid: number;
  /** The customer's cgroup folder in the pids hierarchy (v1) or the unified one (v2). */
  let pidsDir: string;

  beforeAll(async () => {
    // The fork-bomb test signs a customer up while the bomb runs: self-service registration, so open.
    harness = await startAgentHarness({
      config: { accounts: { registration: 'open' } },
      agent: { isolationUidFirst: UID_FIRST, requestTimeoutMs: 30_000, limits: LIMITS },
    });
    uid = UID_FIRST + harness.customer.id;
    project = await openProject(harness);
    const tree = harness.context.services.agent.supervisor.peek(harness.customer.id)!;
    const cgroupOf = fs.readFileSync(`/proc/${tree.pid}/cgroup`, 'utf8');
    const line = cgroupOf.split('\n').find((entry) => /^\d+:(pids)?:/.test(entry) && entry.includes('customer-'))!;
    const mount = line.startsWith('0::') ? '/sys/fs/cgroup' : '/sys/fs/cgroup/pids';
    pidsDir = path.join(mount, line.split(':')[2]!);
  }, 120_000);

  afterAll(async () => {
    killProcessesOf(uid ?? -1);
    await harness?.close();
  });

  it('puts the whole sandbox in the customer’s cgroup, with the configured limits', () => {
    const server = harness.context.services.agent.supervisor.peek(harness.customer.id)!;
    expect(pidsDir).toContain(`${deploymentName(path.resolve(harness.context.dataDir))}/customer-${harness.customer.id}`);
    const members = fs.readFileSync(path.join(pidsDir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    expect(members).toContain(server.pid);
    for (const pid of processesOf(uid)) expect(members).toContain(pid);
    expect(fs.readFileSync(path.join(pidsDir, 'pids.max'), 'utf8').trim()).toBe('64');
    const cpuShares = path.join(pidsDir.replace('/pids/', '/cpu/'), 'cpu.shares');
    if (fs.existsSync(cpuShares)) expect(fs.readFileSync(cpuShares, 'utf8').trim()).toBe('1024');
    expect(harness.context.logs.join('')).toMatch(/agent limits: cgroup v[12] .*64 processes, 320 MiB memory/);
  });

  it('a turn sees only stdio, a seccomp filter, capped temporary folders, and cannot make a user namespace or mount', async () => {
    const script = [
      'exec > limits.txt 2>&1',
      'echo "== fds $(ls /proc/self/fd | tr "\\n" " ")"',
      'grep -E "^(Seccomp|NoNewPrivs|CapEff):" /proc/self/status',
      'df -B1 --output=target,size /tmp /var/tmp /dev/shm',
      'echo "== fsize $(ulimit -f)"',
      'unshare -Ur true; echo "== unshare-user $?"',
      'unshare -U true; echo "== unshare-user-only $?"',
      'python3 - <<"PY"',
      'import ctypes, os',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'def report(name, result):',
      '    print("==", name, result, os.strerror(ctypes.get_errno()) if result != 0 else "ok")',
      'report("mount", libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))',
      'report("keyctl", libc.syscall(250 if os.uname().machine == "x86_64" else 219, 0, 0, 0, 0, 0))',
      'report("ptrace", libc.ptrace(16, 1, None, None))',
      'report("bpf", libc.syscall(321 if os.uname().machine == "x86_64" else 280, 0, 0, 0))',
      'PY',
      // Files under the per-file limit (the 4 MiB quota) until the 8 MiB folder is full.
      'for i in 1 2 3; do head -c 3000000 /dev/zero > /dev/shm/fill$i; done 2>&1 | grep -o "No space left on device"',
      'echo "== done"',
    ].join('\n');
    await runCommand(harness, project.projectId, project.workspace, script);
    const output = fs.readFileSync(path.join(project.workspace, 'limits.txt'), 'utf8');
    expect(output).toContain('== done');
    // 0-2 and the descriptor `ls` reads /proc/self/fd through.
    const fds = output
      .match(/== fds ([\d ]*)/)![1]!
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(
      fds.filter((fd) => fd > 3),
      output,
    ).toEqual([]);
    expect(output).toMatch(/^Seccomp:\s+2$/m);
    expect(output).toMatch(/^NoNewPrivs:\s+1$/m);
    expect(output).toMatch(/^CapEff:\s+0+$/m);
    for (const dir of ['/tmp', '/var/tmp', '/dev/shm']) expect(output).toMatch(new RegExp(`^${dir}\\s+${8 * MiB}$`, 'm'));
    expect(output).toContain(`== fsize ${(4 * MiB) / 1024}`);
    expect(output).toMatch(/== unshare-user [1-9]/);
    expect(output).toMatch(/== unshare-user-only [1-9]/);
    for (const call of ['mount', 'keyctl', 'ptrace', 'bpf']) expect(output).toContain(`== ${call} -1 Operation not permitted`);
    expect(output).toMatch(/No space left on device/);
  }, 120_000);

  it('a write past the workspace quota fails, and no turn starts while the workspace is over it', async () => {
    const script = [
      'exec > quota.txt 2>&1',
      `head -c ${6 * MiB} /dev/zero > big.bin; echo "== big $?"`,
      `head -c ${3 * MiB} /dev/zero > part1.bin && head -c ${3 * MiB} /dev/zero > part2.bin; echo "== parts $?"`,
      'echo "== done"',
    ].join('\n');
    await runCommand(harness, project.projectId, project.workspace, script);
    const output = fs.readFileSync(path.join(project.workspace, 'quota.txt'), 'utf8');
    expect(output).toContain('== done');
    expect(output).toMatch(/== big [1-9]/);
    expect(fs.statSync(path.join(project.workspace, 'big.bin')).size).toBeLessThanOrEqual(4 * MiB);
    expect(output).toContain('== parts 0');

    const refused = await harness.context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${project.projectId}/turns`,
      headers: harness.customer.headers,
      payload: { input: 'one more' },
    });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().detail ?? refused.body).toMatch(/quota/);
    expect(refused.body).toContain('workspace_quota_exceeded');

    for (const file of ['big.bin', 'part1.bin', 'part2.bin']) fs.rmSync(path.join(project.workspace, file));
    await runCommand(harness, project.projectId, project.workspace, 'echo back > back.txt');
    expect(fs.readFileSync(path.join(project.workspace, 'back.txt'), 'utf8')).toBe('back\n');
  }, 180_000);

  it('a memory hog is killed inside the cgroup; the app-server and the service go on', async () => {
    const server = harness.context.services.agent.supervisor.peek(harness.customer.id)!;
    const script = [
      'exec > hog.txt 2>&1',
      'python3 -c "',
      'chunks = []',
      'while True: chunks.append(bytearray(16 << 20))',
      '"',
      'echo "== hog $?"',
    ].join('\n');
    await runCommand(harness, project.projectId, project.workspace, script);
    const output = fs.readFileSync(path.join(project.workspace, 'hog.txt'), 'utf8');
    expect(output).toMatch(/== hog (137|1)\b/);
    expect(harness.context.services.agent.supervisor.peek(harness.customer.id)?.pid).toBe(server.pid);
    const memoryDir = pidsDir.replace('/pids/', '/memory/');
    if (fs.existsSync(path.join(memoryDir, 'memory.failcnt'))) {
      expect(Number(fs.readFileSync(path.join(memoryDir, 'memory.max_usage_in_bytes'), 'utf8'))).toBeLessThanOrEqual(320 * MiB);
      expect(Number(fs.readFileSync(path.join(memoryDir, 'memory.failcnt'), 'utf8'))).toBeGreaterThan(0);
    } else if (fs.existsSync(path.join(pidsDir, 'memory.events'))) {
      expect(fs.readFileSync(path.join(pidsDir, 'memory.events'), 'utf8')).toMatch(/^oom_kill [1-9]/m);
    }
  }, 120_000);

  it('a fork bomb stays under the process limit while the service keeps answering; stopping the app-server ends it', async () => {
    const url = harness.context.url!;
    await runCommand(
      harness,
      project.projectId,
      project.workspace,
      // In a session of its own, so the end of the command (which ends its process group) does not end it.
      "setsid bash -c 'bomb() { bomb | bomb & }; bomb' >/dev/null 2>&1 < /dev/null & sleep 1; echo launched > bomb.txt",
      // The turn's next model call goes through the sandbox's socat bridge, which forks a process per connection
      // inside the same exhausted cgroup: the bomb may starve its own turn. Containment is what is checked here.
      ['completed', 'failed'],
    );
    expect(fs.readFileSync(path.join(project.workspace, 'bomb.txt'), 'utf8')).toBe('launched\n');
    let peak = 0;
    const started = Date.now();
    let answered = 0;
    while (Date.now() - started < 6_000) {
      peak = Math.max(peak, processesOf(uid).length);
      const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
      expect(health.status).toBe(200);
      const email = `bomb-${Math.random().toString(36).slice(2)}@example.com`;
      const registered = await fetch(`${url}/api/v1/customer/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'a long enough password 1', humanCheck: await solvedHumanCheckAt(url) }),
        signal: AbortSignal.timeout(10_000),
      });
      expect(registered.status).toBe(201);
      const login = await fetch(`${url}/api/v1/auth/web-login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'a long enough password 1' }),
        signal: AbortSignal.timeout(10_000),
      });
      expect(login.status).toBe(200);
      answered += 1;
      await sleep(200);
    }
    expect(answered).toBeGreaterThan(3);
    // The bomb ran into the limit: forks were refused and the customer never had more than 64 processes.
    expect(peak).toBeGreaterThan(20);
    expect(peak).toBeLessThanOrEqual(64);
    const events = fs.existsSync(path.join(pidsDir, 'pids.events')) ? fs.readFileSync(path.join(pidsDir, 'pids.events'), 'utf8') : '';
    if (events) expect(events).toMatch(/max [1-9]/);

    await harness.context.services.agent.supervisor.stop(harness.customer.id);
    const deadline = Date.now() + 15_000;
    while (processesOf(uid).length > 0 && Date.now() < deadline) await sleep(50);
    expect(processesOf(uid)).toEqual([]);
    expect(fs.existsSync(pidsDir)).toBe(false);
    // The next turn gets a fresh app-server in a fresh cgroup.
    await runCommand(harness, project.projectId, project.workspace, 'echo again > again.txt');
    expect(fs.readFileSync(path.join(project.workspace, 'again.txt'), 'utf8')).toBe('again\n');
  }, 180_000);

  it('a background process of a turn ends when the app-server stops', async () => {
    await runCommand(
      harness,
      project.projectId,
      project.workspace,
      // The pause lets setsid leave the command's process group, which ends with the command.
      'nohup sleep 1000 >/dev/null 2>&1 & setsid sleep 1001 >/dev/null 2>&1 < /dev/null & sleep 0.5; echo started > bg.txt',
    );
    expect(processesOf(uid).some((pid) => commandLine(pid).startsWith('sleep 100'))).toBe(true);
    await harness.context.services.agent.supervisor.stop(harness.customer.id);
    const deadline = Date.now() + 15_000;
    while (processesOf(uid).length > 0 && Date.now() < deadline) await sleep(50);
    expect(processesOf(uid)).toEqual([]);
  }, 120_000);
});

describe.skipIf(SANDBOX_UNAVAILABLE !== null || !IS_ROOT)('agent.limits.endBackgroundProcessesAtTurnEnd', () => {
  let harness: AgentHarness;
  let uid: number;
  beforeAll(async () => {
    harness = await startAgentHarness({
      agent: { isolationUidFirst: UID_FIRST_AT_TURN_END, limits: { endBackgroundProcessesAtTurnEnd: true } },
    });
    uid = UID_FIRST_AT_TURN_END + harness.customer.id;
  }, 120_000);
  afterAll(async () => {
    killProcessesOf(uid ?? -1);
    await harness?.close();
  });

  it('ends what a turn left running once the turn completed; the app-server stays and serves the next turn', async () => {
    const project = await openProject(harness);
    const server = harness.context.services.agent.supervisor.peek(harness.customer.id)!;
    await runCommand(
      harness,
      project.projectId,
      project.workspace,
      'nohup sleep 1000 >/dev/null 2>&1 & setsid sleep 1001 >/dev/null 2>&1 < /dev/null & sleep 0.5; ps -eo args > bg.txt',
    );
    // The new-session sleeper was running when the command ended.
    expect(fs.readFileSync(path.join(project.workspace, 'bg.txt'), 'utf8')).toMatch(/^sleep 1001$/m);
    const deadline = Date.now() + 10_000;
    const sleepers = () => processesOf(uid).filter((pid) => commandLine(pid).startsWith('sleep 100'));
    while (sleepers().length > 0 && Date.now() < deadline) await sleep(50);
    expect(sleepers()).toEqual([]);
    expect(harness.context.services.agent.supervisor.peek(harness.customer.id)?.pid).toBe(server.pid);
    await runCommand(harness, project.projectId, project.workspace, 'echo next > next.txt');
    expect(fs.readFileSync(path.join(project.workspace, 'next.txt'), 'utf8')).toBe('next\n');
  }, 120_000);
});

const limitsConfig = (overrides: Partial<SandboxLimitSettings> = {}): SandboxLimitSettings => ({
  pids: 128,
  memoryBytes: 512 * MiB,
  swapBytes: 0,
  cpuWeight: 100,
  cgroups: 'auto',
  tmpSizeBytes: 8 * MiB,
  workspaceQuotaBytes: 64 * MiB,
  endBackgroundProcessesAtTurnEnd: false,
  uidClaimDir: path.join(tempDir('switchyard-claims-'), 'uid-ranges'),
  ...overrides,
});

describe.skipIf(SANDBOX_UNAVAILABLE !== null)('descriptors the service inherited', () => {
  it('never reach the sandbox, even when open without close-on-exec in the process that starts it', async () => {
    const dataDir = tempDir('switchyard-fds-');
    const secretFile = path.join(dataDir, 'launcher-secret');
    fs.writeFileSync(secretFile, 'launcher-secret-7b1e\n', { mode: 0o600 });
    const sandbox = await AppServerSandbox.detect(
      {
        mode: 'required',
        bwrap: '/usr/bin/bwrap',
        socat: '/usr/bin/socat',
        uidFirst: 3_460_000,
        uidCount: 1_000,
        hidden: [dataDir],
        codexDirs: [],
        limits: limitsConfig(),
        dataDir,
      },
      pino({ level: 'silent' }),
    );
    const paths = { workspaceRoot: path.join(dataDir, 'workspaces/5'), codexHome: path.join(dataDir, 'codex-homes/5') };
    const inner = 'ls /proc/self/fd | tr "\\n" " "; echo; for fd in 7 12; do (cat <&$fd) 2>&1; done; echo end';
    const command = await sandbox.prepare(5, paths, '/bin/sh', ['-c', inner], { PATH: '/usr/bin:/bin' });
    // A launcher that leaves descriptors 7 (a file) and 12 (a pipe) open: the sandbox's starter inherits them.
    const launcher = 'exec 7<"$0"; exec 12< <(echo pipe-secret-4c2d; sleep 5); exec "$@"';
    const result = spawnSync('/bin/bash', ['-c', launcher, secretFile, command.binary, ...command.args], {
      env: command.env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.stdout).toContain('end');
    const fds = result.stdout.split('\n')[0]!.trim().split(/\s+/).map(Number);
    expect(fds.filter((fd) => fd > 3)).toEqual([]);
    expect(result.stdout).not.toContain('launcher-secret-7b1e');
    expect(result.stdout).not.toContain('pipe-secret-4c2d');
    expect(result.stdout).toMatch(/Bad file descriptor/);
    await sandbox.limits?.stopped(5);
    await sandbox.limits?.close();
  });
});

describe.skipIf(SANDBOX_UNAVAILABLE !== null || !IS_ROOT)('without a cgroup', () => {
  it('says so in one start-up line and bounds the sandbox with rlimits instead', async () => {
    const dataDir = tempDir('switchyard-rlimits-');
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const sandbox = await AppServerSandbox.detect(
      {
        mode: 'required',
        bwrap: '/usr/bin/bwrap',
        socat: '/usr/bin/socat',
        uidFirst: 3_465_000,
        uidCount: 1_000,
        hidden: [dataDir],
        codexDirs: [],
        limits: limitsConfig({ cgroups: 'off', pids: 40, memoryBytes: 256 * MiB }),
        dataDir,
      },
      logger,
    );
    expect(lines.join('')).toMatch(
      /agent limits: NO CGROUP \(agent.limits.cgroups is \\"off\\"\) — rlimits instead: 40 processes per customer uid, 256 MiB data per process/,
    );
    const paths = { workspaceRoot: path.join(dataDir, 'workspaces/6'), codexHome: path.join(dataDir, 'codex-homes/6') };
    const inner = 'echo "nproc $(ulimit -u) data $(ulimit -d) fsize $(ulimit -f) core $(ulimit -c)"; grep ^Seccomp: /proc/self/status';
    const command = await sandbox.prepare(6, paths, '/bin/bash', ['-c', inner], { PATH: '/usr/bin:/bin' });
    const result = spawnSync(command.binary, command.args, { env: command.env, encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`nproc 40 data ${(256 * MiB) / 1024} fsize ${(64 * MiB) / 1024} core 0`);
    expect(result.stdout).toMatch(/^Seccomp:\s+2$/m);
    await sandbox.limits?.close();
  });
});

describe('uid ranges of two deployments on one host', () => {
  it('a live overlapping claim of another data dir is a conflict; the same data dir and a dead claim are not', async () => {
    const dir = path.join(tempDir('switchyard-claims-'), 'uid-ranges');
    const first = await claimUidRange(dir, '/srv/a', 3_000_000, 1_000_000);
    expect(first.conflict).toBeNull();
    // Same data dir (a restart): no conflict.
    expect((await claimUidRange(dir, '/srv/a', 3_000_000, 1_000_000)).conflict).toBeNull();
    // Apart: no conflict; overlapping by one uid: conflict naming the other deployment.
    expect((await claimUidRange(dir, '/srv/b', 4_000_000, 10)).conflict).toBeNull();
    const overlapping = await claimUidRange(dir, '/srv/c', 3_999_990, 5);
    expect(overlapping.conflict?.dataDir).toBe('/srv/a');
    // A claim whose process is gone holds nothing, and is cleared away.
    const stale = JSON.parse(fs.readFileSync(first.file, 'utf8'));
    fs.writeFileSync(first.file, JSON.stringify({ ...stale, pid: 999_999_999 }));
    expect((await claimUidRange(dir, '/srv/d', 3_000_000, 10)).conflict).toBeNull();
    expect(fs.existsSync(first.file)).toBe(false);
  });

  it.skipIf(SANDBOX_UNAVAILABLE !== null || !IS_ROOT)(
    'a second service with an overlapping range starts no app-server and says why; the first goes on',
    async () => {
      const claimDir = path.join(tempDir('switchyard-claims-'), 'uid-ranges');
      const agent = (uidFirst: number) => ({ isolationUidFirst: uidFirst, isolationUidCount: 1_000, limits: { uidClaimDir: claimDir } });
      const first = await createTestContext({ config: { agent: agent(3_470_000) } as never });
      const second = await createTestContext({ config: { agent: agent(3_470_500) } as never });
      try {
        expect(second.logs.join('')).toMatch(/OVERLAPS the range 3470000–3470999 of the deployment with data dir/);
        const customer = await second.services.customers.create({ email: `overlap-${Date.now()}@example.com` });
        const headers = { authorization: `Bearer ${customer.systemToken.key}` };
        const created = await second.app.inject({ method: 'POST', url: '/api/v1/projects', headers, payload: {} });
        expect(created.statusCode, created.body).toBe(201);
        const opened = await second.app.inject({ method: 'POST', url: `/api/v1/projects/${created.json().id}/open`, headers });
        expect(opened.statusCode, opened.body).toBe(503);
        expect(first.logs.join('')).not.toMatch(/OVERLAPS/);
        expect(first.services.agent.supervisor.counts().running).toBe(0);
      } finally {
        await second.close();
        await first.close();
      }
    },
    60_000,
  );
});
