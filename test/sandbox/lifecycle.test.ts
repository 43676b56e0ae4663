/**
 * Commands an agent starts in its sandbox end with the sandbox: a stopped app-server leaves no process of the
 * customer's uid behind, even one that moved to a session of its own (which a process group cannot reach).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, startAgentHarness, toolThenText, type AgentHarness } from '../agent/agent-harness.js';
import { IS_ROOT, SANDBOX_UNAVAILABLE } from './sandbox-support.js';
import { killProcessesOf, processesOf } from './uid-processes.js';

/** A uid range of this file's own: test files run in parallel, each with a customer 1. */
const UID_FIRST = 3_700_000;

const operator = { kind: 'operator', source: 'static', keyId: null } as const;

describe.skipIf(SANDBOX_UNAVAILABLE !== null || !IS_ROOT)('sandboxed commands end with their app-server', () => {
  let harness: AgentHarness;
  beforeAll(async () => {
    harness = await startAgentHarness({ agent: { isolationUidFirst: UID_FIRST } });
  });
  afterAll(async () => {
    killProcessesOf(UID_FIRST + (harness?.customer.id ?? 0));
    await harness?.close();
  });

  it('a stop leaves no process of the customer’s uid, detached and new-session commands included', async () => {
    const uid = UID_FIRST + harness.customer.id;
    const projectId = await harness.createProject();
    const project = await harness.context.services.projects.requireOwned(operator, projectId);
    await harness.context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers: harness.customer.headers });
    // The pause lets setsid leave the command's process group (which Codex ends with the command) before it ends.
    const command =
      'nohup sleep 1000 >/dev/null 2>&1 & setsid sleep 1001 >/dev/null 2>&1 < /dev/null & sleep 0.5; echo started > started.txt';
    harness.upstream.setDefault(
      toolThenText({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: command, workdir: project.workspaceDir }) }),
    );
    const started = await harness.context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: harness.customer.headers,
      payload: { input: 'start servers' },
    });
    expect(started.statusCode).toBe(202);
    await harness.waitForEvent(
      projectId,
      (event) => event.type === 'turn/completed' && dataOf(event).turn.id === started.json().turn_id,
      60_000,
    );
    expect(fs.readFileSync(`${project.workspaceDir}/started.txt`, 'utf8')).toBe('started\n');
    const sleepers = processesOf(uid).filter((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep'));
    // At least the new-session one outlives the command (Codex ends the command's own group itself).
    expect(sleepers.length).toBeGreaterThanOrEqual(1);

    await harness.context.services.agent.supervisor.stop(harness.customer.id);
    const deadline = Date.now() + 15_000;
    while (processesOf(uid).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processesOf(uid)).toEqual([]);
  }, 90_000);
});
