import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCodexBinary } from '../../src/agent/runtime-config.js';
import { TOKEN_ENV_KEY } from '../../src/appserver/launch.js';
import { bearer } from '../helpers/context.js';
import { tempDir } from '../helpers/databases.js';
import { startAgentHarness, type AgentHarness } from './agent-harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A codex whose app-server records the runtime key it was given, then either runs as the real app-server or, while
 * the marker file exists, fails before its handshake (a bad configuration, a broken install).
 */
function recordingCodex(folder: string): { binary: string; tokens: () => string[]; failStarts(fail: boolean): void } {
  const tokenFile = path.join(folder, 'tokens');
  const marker = path.join(folder, 'fail');
  const binary = path.join(folder, 'codex');
  const body = [
    '#!/bin/sh',
    `if [ "$1" = "app-server" ]; then echo "$${TOKEN_ENV_KEY}" >> ${JSON.stringify(tokenFile)}; [ -e ${JSON.stringify(marker)} ] && exit 1; fi`,
    `exec ${JSON.stringify(defaultCodexBinary())} "$@"`,
  ];
  fs.writeFileSync(binary, `${body.join('\n')}\n`, { mode: 0o755 });
  return {
    binary,
    tokens: () => (fs.existsSync(tokenFile) ? fs.readFileSync(tokenFile, 'utf8').trim().split('\n') : []),
    failStarts: (fail) => (fail ? fs.writeFileSync(marker, '') : fs.rmSync(marker, { force: true })),
  };
}

describe('the runtime key of an app-server that never came up', () => {
  const codex = recordingCodex(tempDir('switchyard-key-codex-'));
  let harness: AgentHarness;
  beforeAll(async () => {
    // The scripted codex keeps its records in host files that the agent sandbox hides (test/sandbox covers the sandbox).
    harness = await startAgentHarness({
      agent: { codexBinary: codex.binary, restartAttemptsMax: 2, restartBackoffInitialMs: 50, isolation: 'none' },
    });
  });
  afterAll(async () => harness?.close());

  // A live runtime key authenticates but acts only for a running turn (403 no_running_turn); a revoked one is a 401.
  const authenticates = async (token: string) => {
    const response = await harness.context.app.inject({ method: 'GET', url: '/v1/models', headers: bearer(token) });
    if (response.statusCode === 401) return false;
    expect(response.json().error.code).toBe('no_running_turn');
    return true;
  };
  const runtimeKey = async () => {
    const status = await harness.context.app.inject({ method: 'GET', url: '/api/v1/agent/status', headers: harness.customer.headers });
    return status.json().account.runtime_key as unknown;
  };

  it('is revoked when the start fails', async () => {
    codex.failStarts(true);
    await expect(harness.context.services.agent.supervisor.acquire(harness.customer.id)).rejects.toThrow();
    const token = codex.tokens().at(-1)!;
    expect(token).toMatch(/\S/);
    expect(await authenticates(token)).toBe(false);
    expect(await runtimeKey()).toBeNull();
  });

  it('is revoked for every failed restart, so none is left active once restarts are given up', async () => {
    codex.failStarts(false);
    const supervisor = harness.context.services.agent.supervisor;
    const server = await supervisor.acquire(harness.customer.id);
    const running = codex.tokens().at(-1)!;
    expect(await authenticates(running)).toBe(true);

    const before = codex.tokens().length;
    codex.failStarts(true);
    process.kill(server.pid!, 'SIGKILL');
    // Two failed restarts (restartAttemptsMax), then the supervisor gives up until the next use.
    const deadline = Date.now() + 10_000;
    while ((codex.tokens().length < before + 2 || supervisor.status().length > 0) && Date.now() < deadline) await sleep(50);
    await sleep(300);
    expect(codex.tokens().length).toBe(before + 2);
    for (const token of codex.tokens().slice(before - 1)) expect(await authenticates(token)).toBe(false);
    expect(await runtimeKey()).toBeNull();
  });
});
