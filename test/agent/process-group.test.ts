import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCodexBinary } from '../../src/agent/runtime-config.js';
import { tempDir } from '../helpers/databases.js';
import { cliPath, ensureBuilt } from '../billing/processes.js';
import { startAgentHarness, type AgentHarness } from './agent-harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A codex whose app-server first starts a long-lived command of its own (as a shell running `sleep 1000 &` or a dev
 * server would), appending that command's pid to a file, then becomes the real app-server.
 */
function codexWithBackgroundCommand(pidFile: string): string {
  const folder = tempDir('switchyard-group-codex-');
  const script = path.join(folder, 'codex');
  const body = [
    '#!/bin/sh',
    `if [ "$1" = "app-server" ]; then sleep 1000 </dev/null >/dev/null 2>&1 & echo $! >> ${JSON.stringify(pidFile)}; fi`,
    `exec ${JSON.stringify(defaultCodexBinary())} "$@"`,
  ];
  fs.writeFileSync(script, `${body.join('\n')}\n`, { mode: 0o755 });
  return script;
}

/** Alive means present and not a zombie (a killed orphan may wait for a reaper that never comes). */
function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function goneWithin(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
  return true;
}

describe('commands an app-server started do not outlive it', () => {
  const pidFile = path.join(tempDir('switchyard-group-pids-'), 'pids');
  const commandPids = (): number[] => (fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8').trim().split('\n').map(Number) : []);
  let harness: AgentHarness;
  beforeAll(async () => {
    // The scripted codex keeps its records in host files that the agent sandbox hides (test/sandbox covers the sandbox).
    harness = await startAgentHarness({ agent: { codexBinary: codexWithBackgroundCommand(pidFile), isolation: 'none' } });
  });
  afterAll(async () => {
    await harness?.close();
    for (const pid of commandPids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  });

  async function startedCommand(): Promise<number> {
    await harness.context.services.agent.supervisor.acquire(harness.customer.id);
    // The command of the app-server now running is the last one recorded.
    const pid = commandPids().at(-1)!;
    expect(isAlive(pid)).toBe(true);
    return pid;
  }

  it('an app-server that is stopped takes its commands with it', async () => {
    const pid = await startedCommand();
    await harness.context.services.agent.supervisor.stop(harness.customer.id);
    expect(await goneWithin(pid, 2_000)).toBe(true);
  });

  it('the commands of an app-server that crashed are ended with it', async () => {
    const supervisor = harness.context.services.agent.supervisor;
    const pid = await startedCommand();
    const serverPid = supervisor.peek(harness.customer.id)!.pid!;
    process.kill(serverPid, 'SIGKILL');
    expect(await goneWithin(pid, 5_000)).toBe(true);
  });

  it('service shutdown stops every app-server with its commands', async () => {
    const pid = await startedCommand();
    await harness.context.services.agent.supervisor.close();
    expect(await goneWithin(pid, 2_000)).toBe(true);
  });
});

describe('a service process that exits without stopping its app-servers', () => {
  it('kills their process groups on its way out (here: an uncaught exception)', async () => {
    ensureBuilt();
    const transportModule = path.join(path.dirname(cliPath), 'appserver', 'transport.js');
    // The "app-server" starts a background command, prints its pid, then waits without reading its stdin.
    const serverScript = 'sleep 1000 </dev/null >/dev/null 2>&1 & echo $! $$; exec sleep 1000';
    const service = [
      `import { StdioTransport } from ${JSON.stringify(transportModule)};`,
      `new StdioTransport({ binary: '/bin/sh', args: ['-c', ${JSON.stringify(serverScript)}], env: { PATH: process.env.PATH }, lineLengthMax: 1000, stopGraceMs: 200 }, {`,
      '  onLine: (line) => { console.log(line); setTimeout(() => { throw new Error("crash"); }, 10); },',
      '  onStderrLine: () => undefined, onOversizeLine: () => undefined, onExit: (exit) => console.log("exit " + JSON.stringify(exit)),',
      '});',
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', service], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    expect(exitCode).toBe(1);
    const [commandPid, serverPid] = output
      .split('\n')
      .find((line) => /^\d+ \d+$/.test(line))!
      .split(' ')
      .map(Number) as [number, number];
    const alive = [];
    for (const pid of [commandPid, serverPid]) {
      if (await goneWithin(pid, 2_000)) continue;
      alive.push(pid);
      process.kill(pid, 'SIGKILL');
    }
    expect(alive).toEqual([]);
  });
});
